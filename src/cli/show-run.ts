import type { ApproverIdentity, RecognisedApprover } from "../agent/approval/approver-directory.js";
import type { RunSchedule } from "../agent/durable/run-queue.js";
import type { FinishedCallRecord, PendingToolCall, RunState } from "../agent/durable/run-state.js";
import type { ModelMessage } from "../agent/model-message.js";
import { requestedToolCalls } from "../agent/requested-tool-calls.js";
import { escapeUntrustedText, quoteUntrustedValue } from "../internal/untrusted-text.js";
import { runCancelledName } from "./cancel-run.js";
import type { CliIo } from "./cli-io.js";
import { type CliRunRecord, CliRunRecordError } from "./cli-run-records.js";
import { describeStartedBy } from "./describe-started-by.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { formatJsonText } from "./format-json-text.js";
import { formatRecognisedApprovers } from "./format-recognised-approvers.js";
import { loadSavedRun } from "./load-saved-run.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";

/** One tool call as `switchyard runs show --json` prints it. */
export interface RunShowToolCall {
  /** The model call (step) that asked for it, from 1. */
  stepNumber: number;
  toolCallId: string;
  toolName: string;
  /** The arguments as the model sent them (JSON text), secrets redacted. */
  arguments: string;
  /**
   * How it ended (`succeeded`, `failed`, `refused`, ...); `awaiting_approval`
   * or `started` for a call of the step the run stopped in; `null` when the
   * run did not record it (states saved by an older Switchyard).
   */
  status: string | null;
  /** The tool message the model read; `null` while the call has none. */
  result: string | null;
}

/** One approval of a run as `switchyard runs show --json` prints it. */
export interface RunShowApproval {
  toolCallId: string;
  toolName: string;
  /**
   * `approved`, `refused` or `expired` (nobody answered in time); `pending` while a suspended run waits for the
   * answer; `withdrawn` for a question of a run that was cancelled, and
   * `unanswered` for one of a run that ended otherwise before it read an
   * answer (a run the worker gave up on: the person may have answered;
   * nothing ran).
   */
  outcome: "approved" | "refused" | "expired" | "pending" | "withdrawn" | "unanswered";
  /** What was to run: the tool and its arguments (JSON text, secrets redacted). */
  arguments: string;
  /** `sha256:` fingerprint of the tool name and arguments the decision binds to. */
  fingerprint: string | null;
  interactionId: string | null;
  /** Who approved, as the approver names them. */
  approvedBy: string | null;
  /** Why it was refused (`denied`, `expired`, ...). */
  code: string | null;
  /** The `approvalPolicy` rule that decided without asking anyone. */
  rule: string | null;
  /** When the run recorded the decision (ISO 8601). */
  decidedAt: string | null;
  /** Present when no one was asked: the standing approval (its interaction, and which use) that covered the call. */
  coveredBy?: { approvalId: string; use: number; maxCalls: number };
  /** With an approver directory: each person who answered (directory id, name, channel, evidence). */
  people?: RecognisedApprover[];
}

/** What `switchyard runs show <run-id> --json` prints. */
export interface RunShowReport {
  runId: string;
  /** The example it belongs to; `null` when it was not started by `switchyard run --no-wait`. */
  example: string | null;
  task: string | null;
  /** Who started the run (`RunOptions.startedBy`: a directory id or a channel identity), when it was given. */
  startedBy?: string | ApproverIdentity;
  status: RunState["status"];
  createdAt: string;
  updatedAt: string;
  stepCount: number;
  usage: RunState["usage"];
  /** The model's last answer without tool calls, when it gave one. */
  answer: string | null;
  error: { name: string; message: string } | null;
  toolCalls: RunShowToolCall[];
  approvals: RunShowApproval[];
  /**
   * When a worker next looks at the run (`null` for a run that ended), and
   * the attempts at it that failed in a row with the last one's error (a
   * run whose resume throws is tried again after a growing wait).
   */
  schedule: { nextCheckAt: string | null; attempts: number; lastError: string | null };
}

/**
 * `switchyard runs show <run-id> [--json]`: what a run did, from its saved
 * state in either store: its answer, its tool calls with their outcomes,
 * its approvals (who, when, what, fingerprint) and its error. Every text a
 * model or service wrote is escaped (quoted, on one line) before it reaches
 * the terminal. Resolves to the exit status.
 */
export async function showRun(runId: string, json: boolean, io: CliIo): Promise<ExitCode> {
  const storage = await openRunStorage(io.env);
  try {
    const state = await loadSavedRun(storage, runId, "shown");
    const report = buildRunShowReport(
      state,
      await loadRecord(storage, runId, io),
      await storage.store.schedule(runId),
    );
    io.stdout.write(json ? `${JSON.stringify(report)}\n` : formatRunShowReport(report));
    return exitCodes.completed;
  } finally {
    await storage.close().catch(() => {});
  }
}

async function loadRecord(
  storage: RunStorage,
  runId: string,
  io: CliIo,
): Promise<CliRunRecord | undefined> {
  try {
    return await storage.records.load(runId);
  } catch (error) {
    if (!(error instanceof CliRunRecordError)) throw error;
    io.stderr.write(`warning: ${error.file} cannot be read: ${error.problem}\n`);
    return undefined;
  }
}

/** The report of one saved run: its calls read from the conversation and the state's records. */
export function buildRunShowReport(
  state: RunState,
  record: CliRunRecord | undefined,
  schedule?: RunSchedule | undefined,
): RunShowReport {
  const results = toolResults(state.messages);
  const finished = new Map(
    (state.finishedCalls ?? []).map((call): [string, FinishedCallRecord] => [
      call.toolCallId,
      call,
    ]),
  );
  const pending = new Map(state.pendingCalls.map((call) => [call.toolCallId, call]));
  const toolCalls: RunShowToolCall[] = [];
  const approvals: RunShowApproval[] = [];
  let stepNumber = 0;
  let answer: string | null = null;
  for (const message of state.messages) {
    if (message.role !== "assistant") continue;
    stepNumber++;
    const calls = requestedToolCalls(message);
    if (calls.length === 0 && message.content) answer = message.content;
    for (const call of calls) {
      const done = finished.get(call.id);
      const open = pending.get(call.id);
      toolCalls.push({
        stepNumber,
        toolCallId: call.id,
        toolName: call.function.name,
        arguments: call.function.arguments,
        status: done?.status ?? openStatus(open),
        result: results.get(call.id) ?? open?.content ?? null,
      });
      const approval = approvalOf(state, call.function.arguments, done, open);
      if (approval)
        approvals.push({ ...approval, toolCallId: call.id, toolName: call.function.name });
    }
  }
  return {
    runId: state.runId,
    example: record?.example ?? null,
    task: record?.task ?? null,
    ...(state.startedBy !== undefined ? { startedBy: state.startedBy } : {}),
    status: state.status,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    stepCount: state.stepCount,
    usage: state.usage,
    answer,
    error: state.error ?? null,
    toolCalls,
    approvals,
    schedule: {
      nextCheckAt: schedule?.nextCheckAt?.toISOString() ?? null,
      attempts: schedule?.attempts ?? 0,
      lastError: schedule?.lastError ?? null,
    },
  };
}

/** Tool messages by the id of the call they answer. */
function toolResults(messages: readonly ModelMessage[]): Map<string, string> {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "tool") results.set(message.tool_call_id, message.content);
  }
  return results;
}

function openStatus(open: PendingToolCall | undefined): string | null {
  if (!open) return null;
  return open.phase === "finished" ? (open.status ?? null) : open.phase;
}

function approvalOf(
  state: RunState,
  args: string,
  done: FinishedCallRecord | undefined,
  open: PendingToolCall | undefined,
): Omit<RunShowApproval, "toolCallId" | "toolName"> | undefined {
  const decided = done?.approval;
  if (decided) {
    return {
      outcome: decided.outcome,
      arguments: args,
      fingerprint: decided.fingerprint,
      interactionId: decided.interactionId ?? null,
      approvedBy: decided.approvedBy ?? null,
      code: decided.code ?? null,
      rule: decided.rule ?? null,
      decidedAt: decided.decidedAt,
      ...(decided.coveredBy
        ? {
            coveredBy: {
              approvalId: decided.coveredBy.approvalId,
              use: decided.coveredBy.use,
              maxCalls: decided.coveredBy.maxCalls,
            },
          }
        : {}),
      ...(decided.people ? { people: decided.people } : {}),
    };
  }
  if (open?.phase !== "awaiting_approval") return undefined;
  const outcome =
    state.status === "suspended" || state.status === "running"
      ? "pending"
      : state.error?.name === runCancelledName
        ? "withdrawn"
        : "unanswered";
  return {
    outcome,
    arguments: args,
    fingerprint: open.fingerprint ?? null,
    interactionId: open.interactionId ?? null,
    approvedBy: null,
    code: null,
    rule: null,
    decidedAt: null,
  };
}

/** The report as text for a person: every model or service text quoted and escaped. */
export function formatRunShowReport(report: RunShowReport): string {
  const lines = [`Run ${report.runId}${report.example ? ` (example ${report.example})` : ""}`];
  const unknown = report.toolCalls.filter((call) => call.status === "outcome_unknown").length;
  lines.push(
    `status:    ${report.status}${unknown > 0 ? `, outcome unknown: ${unknown} call(s)` : ""}, ${report.stepCount} step(s), ${report.usage.totalTokens} tokens; created ${report.createdAt}, updated ${report.updatedAt}`,
  );
  if (report.task !== null) lines.push(`task:      ${quoteUntrustedValue(report.task)}`);
  const { startedBy } = report;
  if (startedBy !== undefined) {
    lines.push(`started by: ${describeStartedBy(startedBy)}`);
  }
  if (report.answer !== null) lines.push(`answer:    ${quoteUntrustedValue(report.answer)}`);
  if (report.error) {
    lines.push(
      `error:     ${escapeUntrustedText(report.error.name)}: ${quoteUntrustedValue(report.error.message)}`,
    );
  }
  const { nextCheckAt, attempts, lastError } = report.schedule;
  if (nextCheckAt !== null) lines.push(`next check: ${nextCheckAt}`);
  if (attempts > 0) {
    lines.push(
      `attempts:  ${attempts} failed in a row${lastError !== null ? `; last error: ${quoteUntrustedValue(lastError)}` : ""}`,
    );
  }
  lines.push(report.toolCalls.length === 0 ? "tool calls: none" : "tool calls:");
  for (const call of report.toolCalls) {
    lines.push(
      `  step ${call.stepNumber}  ${escapeUntrustedText(call.toolName)} ${formatJsonText(call.arguments)}  ${call.status === "outcome_unknown" ? "outcome unknown" : (call.status ?? "(not recorded)")}  [${escapeUntrustedText(call.toolCallId)}]`,
    );
    if (call.result !== null) lines.push(`    result: ${shortened(call.result)}`);
  }
  lines.push(report.approvals.length === 0 ? "approvals: none" : "approvals:");
  for (const approval of report.approvals) {
    const who =
      approval.outcome === "approved"
        ? approval.approvedBy !== null
          ? ` by ${quoteUntrustedValue(approval.approvedBy)}`
          : approval.rule !== null
            ? ` by rule ${quoteUntrustedValue(approval.rule)}`
            : approval.coveredBy
              ? ` by the standing approval ${escapeUntrustedText(approval.coveredBy.approvalId ?? "")} (use ${approval.coveredBy.use} of ${approval.coveredBy.maxCalls}), not asked`
              : ""
        : approval.code !== null
          ? ` (${escapeUntrustedText(approval.code)})`
          : "";
    const when = approval.decidedAt !== null ? ` at ${approval.decidedAt}` : "";
    lines.push(
      `  ${escapeUntrustedText(approval.toolName)} ${formatJsonText(approval.arguments)}: ${approval.outcome}${who}${when}`,
    );
    lines.push(
      `    fingerprint ${approval.fingerprint === null ? "(none)" : escapeUntrustedText(approval.fingerprint)}, interaction ${approval.interactionId === null ? "(none)" : escapeUntrustedText(approval.interactionId)}`,
    );
    if (approval.people && approval.people.length > 0) {
      lines.push(`    people ${formatRecognisedApprovers(approval.people)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Longest tool result shown whole in the text view; `--json` always has all of it. */
const shownResultChars = 300;

/** A tool message as JSON (or quoted text), cut after `shownResultChars` of what it shows. */
function shortened(result: string): string {
  const shown = formatJsonText(result);
  if (shown.length <= shownResultChars) return shown;
  // Not inside an escape: a cut `\u00` would read as something else.
  const end = shown.slice(0, shownResultChars).replace(/\\[^\s]{0,9}$/, "").length;
  return `${shown.slice(0, end)}... (${shown.length - end} more characters; --json shows all)`;
}
