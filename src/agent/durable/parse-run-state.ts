import type { ApproverIdentity } from "../approval/approver-directory.js";
import { findStartedByProblem } from "../approval/run-starter.js";
import { checkStandingScope, type StandingApproval } from "../approval/standing-approval.js";
import { requestedToolCalls } from "../requested-tool-calls.js";
import { readRunBudgetState } from "../run-budget.js";
import { checkPendingCalls } from "./check-pending-calls.js";
import { checkStateMessages, isObject } from "./check-state-messages.js";
import { RunStateError } from "./durable-errors.js";
import { findRunIdProblem } from "./run-id.js";
import {
  type FinishedCallRecord,
  finishedCallStatuses,
  type RunState,
  type RunStateStatus,
  runStateFormat,
  runStateStatuses,
  runStateVersion,
} from "./run-state.js";

type Fields = Record<string, unknown>;

/**
 * Reads each released version of the format into the current shape. A new
 * version adds an entry here (upgrading the old shape), never changes one.
 */
const readers: Record<number, (fields: Fields, problems: string[]) => RunState> = {
  1: readVersion1,
};

/**
 * Reads a run state from JSON text or a parsed value, checking every field:
 * returns a fresh copy, or throws a `RunStateError` naming `source` and each
 * problem (not JSON, no or another `format` marker, a newer or unknown
 * `version`, missing or wrong fields). Never returns a half-read state.
 *
 * @example
 * const state = parseRunState(await readFile(path, "utf8"), path);
 */
export function parseRunState(input: unknown, source = "the value given"): RunState {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new RunStateError(
        source,
        `it is not valid JSON (${(error as Error).message}); the file may be truncated or corrupted`,
        { cause: error },
      );
    }
  }
  if (!isObject(value)) throw new RunStateError(source, "it is not a JSON object");
  const { format, version } = value;
  if (format === undefined) {
    throw new RunStateError(
      source,
      `it has no "format" marker, so it is not a Switchyard run state (expected "format": "${runStateFormat}")`,
    );
  }
  if (format !== runStateFormat) {
    throw new RunStateError(
      source,
      `its "format" is ${JSON.stringify(format)}, not "${runStateFormat}": it is not a Switchyard run state`,
    );
  }
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw new RunStateError(
      source,
      `its "version" must be a positive integer; got ${JSON.stringify(version) ?? "nothing"}`,
    );
  }
  if (version > runStateVersion) {
    throw new RunStateError(
      source,
      `it was written in run-state format version ${version}, newer than this Switchyard reads (1 to ${runStateVersion}); upgrade Switchyard to resume it`,
    );
  }
  const reader = readers[version];
  if (!reader) {
    throw new RunStateError(
      source,
      `run-state format version ${version} is not one Switchyard ever wrote`,
    );
  }
  const problems: string[] = [];
  const state = reader(value, problems);
  if (problems.length > 0) throw new RunStateError(source, problems);
  return state;
}

/** The JSON text a store writes: two-space indented, ending with a newline. */
export function serializeRunState(state: RunState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

function readVersion1(fields: Fields, problems: string[]): RunState {
  const runIdProblem = findRunIdProblem(fields.runId);
  if (runIdProblem) problems.push(runIdProblem);
  const status = fields.status as RunStateStatus;
  if (!runStateStatuses.includes(status)) {
    problems.push(
      `status must be one of ${runStateStatuses.join(", ")}; got ${JSON.stringify(fields.status) ?? "nothing"}`,
    );
  }
  for (const name of ["createdAt", "updatedAt"]) {
    const stamp = fields[name];
    if (typeof stamp !== "string" || Number.isNaN(Date.parse(stamp))) {
      problems.push(`${name} must be an ISO 8601 timestamp`);
    }
  }
  const maxSteps = fields.maxSteps;
  if (typeof maxSteps !== "number" || !Number.isInteger(maxSteps) || maxSteps < 1) {
    problems.push("maxSteps must be a positive integer");
  }
  const stepCount = fields.stepCount;
  if (typeof stepCount !== "number" || !Number.isInteger(stepCount) || stepCount < 0) {
    problems.push("stepCount must be an integer of 0 or more");
  }
  const revision = fields.revision ?? 0;
  if (typeof revision !== "number" || !Number.isInteger(revision) || revision < 0) {
    problems.push("revision must be an integer of 0 or more when present");
  }
  const metadata = readMetadata(fields.metadata, problems);
  const startedBy = readStartedBy(fields.startedBy, problems);
  const usage = readUsage(fields.usage, problems);
  const budget = readRunBudgetState(fields.budget, problems);
  const messages = checkStateMessages(fields.messages, problems);
  const pendingCalls = checkPendingCalls(fields.pendingCalls, problems);
  const error = readError(fields.error, problems);
  const usedApprovals = fields.usedApprovals;
  if (
    usedApprovals !== undefined &&
    (!Array.isArray(usedApprovals) || usedApprovals.some((id) => typeof id !== "string"))
  ) {
    problems.push("usedApprovals must be an array of approval ids when present");
  }
  const finishedCalls = readFinishedCalls(fields.finishedCalls, problems);
  const standingApprovals = readStandingApprovals(fields.standingApprovals, problems);
  const deniedActions = fields.deniedActions;
  if (
    deniedActions !== undefined &&
    (!Array.isArray(deniedActions) || deniedActions.some((id) => typeof id !== "string"))
  ) {
    problems.push("deniedActions must be an array of fingerprints when present");
  }
  const seed = fields.approvalIdSeed;
  if (seed !== undefined && typeof seed !== "string") {
    problems.push("approvalIdSeed must be a string when present");
  }
  const seal = fields.seal;
  if (seal !== undefined && typeof seal !== "string") {
    problems.push("seal must be a string when present");
  }
  const state: RunState = {
    format: runStateFormat,
    version: runStateVersion,
    runId: fields.runId as string,
    revision: revision as number,
    status,
    ...(metadata ? { metadata } : {}),
    ...(startedBy !== undefined ? { startedBy } : {}),
    createdAt: fields.createdAt as string,
    updatedAt: fields.updatedAt as string,
    maxSteps: maxSteps as number,
    stepCount: stepCount as number,
    usage,
    ...(budget ? { budget } : {}),
    messages,
    pendingCalls,
    ...(error ? { error } : {}),
    ...(Array.isArray(usedApprovals) ? { usedApprovals: [...(usedApprovals as string[])] } : {}),
    ...(finishedCalls ? { finishedCalls } : {}),
    ...(standingApprovals ? { standingApprovals } : {}),
    ...(Array.isArray(deniedActions) ? { deniedActions: [...(deniedActions as string[])] } : {}),
    ...(typeof seed === "string" ? { approvalIdSeed: seed } : {}),
    ...(typeof seal === "string" ? { seal } : {}),
  };
  if (problems.length === 0) checkOpenStep(state, problems);
  return state;
}

/** The open step's calls are those of the last assistant message; a suspended run waits for one. */
function checkOpenStep(state: RunState, problems: string[]): void {
  const { pendingCalls, messages, status } = state;
  if (pendingCalls.length > 0) {
    const last = messages.at(-1);
    const askedIds =
      last?.role === "assistant" ? requestedToolCalls(last).map((call) => call.id) : [];
    const pendingIds = pendingCalls.map((call) => call.toolCallId);
    if (askedIds.join("\n") !== pendingIds.join("\n")) {
      problems.push(
        "pendingCalls must be the tool calls of the last message: an assistant message asking for the same ids in the same order",
      );
    }
  }
  if (status === "suspended" && !pendingCalls.some((call) => call.phase === "awaiting_approval")) {
    problems.push("status is suspended but no pending call is awaiting_approval");
  }
}

function readUsage(value: unknown, problems: string[]): RunState["usage"] {
  const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  if (!isObject(value)) {
    problems.push("usage must be an object with promptTokens, completionTokens and totalTokens");
    return usage;
  }
  for (const key of Object.keys(usage) as Array<keyof typeof usage>) {
    const count = value[key];
    if (typeof count !== "number" || !Number.isFinite(count) || count < 0) {
      problems.push(`usage.${key} must be a number of 0 or more`);
    } else {
      usage[key] = count;
    }
  }
  return usage;
}

function readMetadata(value: unknown, problems: string[]): RunState["metadata"] {
  if (value === undefined) return undefined;
  if (!isObject(value) || Object.values(value).some((entry) => typeof entry !== "string")) {
    problems.push("metadata must be an object of string values when present");
    return undefined;
  }
  return Object.fromEntries(Object.entries(value)) as Record<string, string>;
}

function readStartedBy(value: unknown, problems: string[]): RunState["startedBy"] {
  if (value === undefined) return undefined;
  const problem = findStartedByProblem(value);
  if (problem !== undefined) {
    problems.push(`startedBy ${problem} when present`);
    return undefined;
  }
  return typeof value === "string" ? value : { ...(value as ApproverIdentity) };
}

function readError(value: unknown, problems: string[]): RunState["error"] {
  if (value === undefined) return undefined;
  if (!isObject(value) || typeof value.name !== "string" || typeof value.message !== "string") {
    problems.push("error must be an object with a name and a message when present");
    return undefined;
  }
  return { name: value.name, message: value.message };
}

const finishedStatuses: ReadonlySet<string> = new Set(finishedCallStatuses);

/** `finishedCalls`: each with an id, a tool name, a step, a status and, when present, an approval. */
function readFinishedCalls(value: unknown, problems: string[]): FinishedCallRecord[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push("finishedCalls must be an array when present");
    return undefined;
  }
  const calls: FinishedCallRecord[] = [];
  for (const [index, call] of value.entries()) {
    const at = `finishedCalls[${index}]`;
    if (
      !isObject(call) ||
      typeof call.toolCallId !== "string" ||
      typeof call.toolName !== "string" ||
      typeof call.stepNumber !== "number" ||
      !finishedStatuses.has(call.status as string)
    ) {
      problems.push(`${at} must have toolCallId, toolName, stepNumber and a finished status`);
      continue;
    }
    const approval = call.approval;
    if (
      approval !== undefined &&
      (!isObject(approval) ||
        !["approved", "refused", "expired"].includes(approval.outcome as string) ||
        typeof approval.fingerprint !== "string" ||
        typeof approval.decidedAt !== "string")
    ) {
      problems.push(`${at}.approval must have an outcome, a fingerprint and decidedAt`);
      continue;
    }
    calls.push(structuredClone(call) as unknown as FinishedCallRecord);
  }
  return calls;
}

/**
 * `standingApprovals`: each with the approval that granted it, its scope
 * (whose fingerprint must match it) and uses. One saved before approvals
 * had ids names the interaction that granted it instead.
 */
function readStandingApprovals(value: unknown, problems: string[]): StandingApproval[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push("standingApprovals must be an array when present");
    return undefined;
  }
  const approvals: StandingApproval[] = [];
  for (const [index, approval] of value.entries()) {
    const at = `standingApprovals[${index}]`;
    if (
      !isObject(approval) ||
      typeof (approval.approvalId ?? approval.interactionId) !== "string" ||
      typeof approval.grantedAt !== "string" ||
      !Number.isSafeInteger(approval.used) ||
      (approval.used as number) < 0 ||
      (approval.revoked !== undefined && typeof approval.revoked !== "string")
    ) {
      problems.push(`${at} must have approvalId, scope, used and grantedAt`);
      continue;
    }
    if (!checkStandingScope(approval.scope, `${at}.scope`, problems)) continue;
    const { interactionId, service: _service, ...kept } = structuredClone(approval);
    approvals.push({ approvalId: interactionId, ...kept } as unknown as StandingApproval);
  }
  return approvals;
}
