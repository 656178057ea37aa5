import type { Logger } from "pino";
import { ConfigurationError } from "../errors/configuration-error.js";
import { componentLogger } from "../internal/logger.js";
import { missingMethods } from "../internal/missing-methods.js";
import { SecretRegistry, secretsOf } from "../internal/redact.js";
import type { AnyTool } from "../tools/tool.js";
import { findToolNameProblem } from "../tools/tool-name.js";
import { findTimeoutProblem, maxTimerMs } from "../tools/tool-timeout.js";
import type { ApprovalAuditLog, ApprovalAuditRecord } from "./approval/approval-audit-record.js";
import { type ApprovalExpiryAction, approvalExpiryActions } from "./approval/approval-expiry.js";
import { type ApprovalPolicy, checkApprovalPolicy } from "./approval/approval-policy.js";
import { type ApproverDirectory, checkApproverDirectory } from "./approval/approver-directory.js";
import type { CompiledApprovalPolicy } from "./approval/compile-approval-policy.js";
import { redactingApprover } from "./approval/redacting-approver.js";
import type { Approver } from "./approver.js";
import { InMemoryRunStore } from "./durable/in-memory-run-store.js";
import { isRunQueue, type RunQueue, runQueueMethods } from "./durable/run-queue.js";
import { type RunStore, runStoreMethods } from "./durable/run-store.js";
import {
  type AgentLoopOptions,
  type LoopSettings,
  loopOptionNames,
  resolveLoopOptions,
} from "./loop-options.js";
import type { Model } from "./model.js";
import type { ModelToolDefinition } from "./model-message.js";
import type { AgentRequestOptions } from "./prepare-step.js";
import { type RunBudget, readRunBudget } from "./run-budget.js";
import type { OutputSchema } from "./structured-output.js";

/**
 * How to build an `Agent`. `Schema` is the type of the `output` schema, when
 * one is given (see `AgentLoopOptions`); `ToolName` the names of the tools,
 * inferred from `tools`, which `stopWhen` may name.
 */
export interface AgentOptions<
  Schema extends OutputSchema | undefined = undefined,
  ToolName extends string = string,
> extends AgentLoopOptions<Schema, ToolName> {
  /** The reasoning service, e.g. a `ReasonerClient`, or a `ScriptedModel` in tests. */
  model: Model;
  /** The tools the model may call; names must be unique. @default [] */
  tools?: readonly AnyTool<ToolName>[] | undefined;
  /** Sent first in every conversation, as a system message. */
  instructions?: string | undefined;
  /**
   * Asked before a tool whose `needsApproval` holds runs. Without one, such
   * calls are refused (fail closed).
   */
  approver?: Approver | undefined;
  /**
   * Who may approve: the people, their roles and how each channel
   * recognises them (`approverDirectory({ people })`, a JSON file with
   * `loadApproverDirectory`, or your own). With one, an answer counts only
   * from a person in it whom the asking rule allows (its `roles`,
   * `required` distinct people, and not the person who started the run
   * unless `allowSelfApproval`), and every decision record names each
   * person by directory id and the channel evidence that recognised them.
   * Without one, the approver's answer counts as now (the quick start's
   * local user at the terminal).
   */
  approverDirectory?: ApproverDirectory | undefined;
  /**
   * The one place that decides whether a tool call runs, is refused, or asks
   * the approver: named rules (`allow` | `deny` | `ask`) over the tool, its
   * arguments and its target, evaluated before anyone is asked; deny wins
   * over allow. The tools' `needsApproval` are its defaults. Every automatic
   * decision carries its rule's name. `shadow: true` only records what the
   * rules would decide.
   * @default { rules: [] } (the tools' defaults decide)
   */
  approvalPolicy?: ApprovalPolicy | undefined;
  /**
   * What the run does when nobody answers an approval question before it
   * expires (never counted as a denial): `tell-model` (the call does not
   * run; the model is told it expired), `end` (the run ends with status
   * `approval_expired`), or `ask-again` (a new question about the same call).
   * @default "tell-model"
   */
  onApprovalExpired?: ApprovalExpiryAction | undefined;
  /**
   * Where the audit record of every approval decision (a person's answer,
   * a policy rule, an expiry, a refusal by the gate) is appended, e.g.
   * `new JsonlAuditLog({ path: "audit.jsonl" })`. An approved call runs
   * only once its record is appended.
   */
  auditLog?: ApprovalAuditLog | undefined;
  /**
   * Called with the audit record of every approval decision, e.g. to ship
   * it elsewhere. What it throws is logged; the decision stands.
   */
  onApprovalDecided?: ((record: ApprovalAuditRecord) => void | Promise<void>) | undefined;
  /**
   * Model calls per run. When the last one still asks for tools, those run,
   * and the run ends with status `max_steps`.
   * @default 10
   */
  maxSteps?: number | undefined;
  /**
   * What each run may spend (tool calls, tokens), over the whole run and
   * across resumes; a run's own `budget` replaces it. Reached, the run ends
   * with status `budget_exhausted`, or with `onExhausted: "ask"` the approver
   * is asked to extend it by `extendBy`. See `RunBudget`.
   * @default no budget
   * @example
   * budget: { maxToolCalls: 20, onExhausted: "ask", extendBy: { toolCalls: 10 } }
   */
  budget?: RunBudget | undefined;
  /** Tool calls of one answer that run at the same time. @default 4 */
  toolConcurrency?: number | undefined;
  /**
   * Time a tool call may take before its signal fires and the model is told.
   * A tool's own `timeoutMs` (see `defineTool`) overrides it.
   * @default 60000
   */
  toolTimeoutMs?: number | undefined;
  /** Receives step, tool and approval audit lines. @default silent */
  logger?: Logger | undefined;
  /**
   * Request fields for every model call: `model`, `temperature`,
   * `max_tokens`, ... Options of one provider (the reasoning service's
   * routing and compression) are options of its model, e.g. `ReasonerClient`.
   */
  requestOptions?: AgentRequestOptions | undefined;
  /**
   * Keeps every run's state (e.g. a `FileRunStore`): suspended runs can be
   * resumed by id, and each destructive call is recorded as started before
   * it runs and finished after, so a crash never makes it run twice.
   * Without one, the agent keeps its runs in an `InMemoryRunStore` of its
   * own, as long as it lives (not a run queue: nothing claims its runs): a
   * suspended run is kept there, to resume by id (its state is also in the
   * result, to resume elsewhere); of a run that ended it keeps the approvals
   * it spent, and, for a run that went on from a state, the calls it started.
   * @default a new InMemoryRunStore
   */
  runStore?: RunStore | undefined;
  /**
   * Which runs are due and who works on each: the agent claims every run
   * it works on in this queue, so two processes never run the same one at
   * once (a process that lost its claim can save nothing more), and a
   * `RunWorker` takes due runs from it. `false`: runs are not claimed,
   * since something else sees that one process works on a run at a time
   * (DBOS, in `dbosAgent`); saves are then fenced by revision alone.
   * @default the `runStore`, when it is also a run queue (as `FileRunStore` and `PostgresRunStore` are)
   */
  runQueue?: RunQueue | false | undefined;
  /**
   * Secret values the agent must never let through, besides those it learns
   * by itself (the keys and tokens of its model's, tools' and approver's
   * clients, and `stateKey`): removed from what the model reads, saved run
   * states, log records and the errors in results.
   */
  secrets?: readonly string[] | undefined;
  /**
   * Longest tool message (a result or an error) sent to the model, in
   * characters. A longer one is cut, with a note saying how much was left
   * out and which paging parameters of the tool get the rest.
   * @default 32000
   */
  maxToolResultChars?: number | undefined;
  /**
   * Seals durable run states: each saved or returned state carries an
   * HMAC-SHA256 made with this key, and a resume refuses a state whose seal
   * does not match (edited by hand, or an older copy put back). At least 32
   * characters; keep it out of the state directory. Without it, states are
   * not sealed. The command line reads it from `SWITCHYARD_STATE_KEY`.
   */
  stateKey?: string | undefined;
}

/** The options with defaults applied and the per-run work done once. */
export interface AgentSettings extends LoopSettings {
  model: Model;
  tools: ReadonlyMap<string, AnyTool>;
  toolDefinitions: readonly ModelToolDefinition[];
  instructions: string | undefined;
  approver: Approver | undefined;
  /** Who may approve (`AgentOptions.approverDirectory`); `undefined`: answers count as the approver gives them. */
  approverDirectory: ApproverDirectory | undefined;
  approvalPolicy: CompiledApprovalPolicy;
  onApprovalExpired: ApprovalExpiryAction;
  auditLog: ApprovalAuditLog | undefined;
  onApprovalDecided: ((record: ApprovalAuditRecord) => void | Promise<void>) | undefined;
  maxSteps: number;
  budget: RunBudget | undefined;
  toolConcurrency: number;
  toolTimeoutMs: number;
  logger: Logger;
  requestOptions: AgentRequestOptions;
  runStore: RunStore;
  /** `runStore` when it is the agent's own in-memory store (none was given). */
  ownRunStore: InMemoryRunStore | undefined;
  /** Where runs are claimed; `undefined`: they are not. */
  runQueue: RunQueue | undefined;
  /** Every secret this agent knows of, applied at each boundary. */
  secrets: SecretRegistry;
  maxToolResultChars: number;
  stateKey: string | undefined;
}

/** The shortest `stateKey` accepted. */
export const minimumStateKeyLength = 32;

const knownOptions = new Set([
  "model",
  "tools",
  "instructions",
  "approver",
  "approverDirectory",
  "approvalPolicy",
  "onApprovalExpired",
  "auditLog",
  "onApprovalDecided",
  "maxSteps",
  "budget",
  "toolConcurrency",
  "toolTimeoutMs",
  "logger",
  "requestOptions",
  "runStore",
  "runQueue",
  ...loopOptionNames,
  "secrets",
  "maxToolResultChars",
  "stateKey",
]);

/**
 * Checks every option and returns the settings, or throws one
 * ConfigurationError listing every problem found.
 */
export function resolveAgentOptions(
  options: AgentOptions<OutputSchema | undefined>,
): AgentSettings {
  if (typeof options !== "object" || options === null) {
    throw new ConfigurationError("Agent options must be an object with at least a model.");
  }
  const problems: string[] = [];
  for (const key of Object.keys(options)) {
    if (!knownOptions.has(key)) {
      problems.push(`Unknown option "${key}"; known options: ${[...knownOptions].join(", ")}.`);
    }
  }
  const { model, approver, instructions, requestOptions = {} } = options;
  const ownRunStore = options.runStore === undefined ? new InMemoryRunStore() : undefined;
  const runStore = options.runStore ?? (ownRunStore as InMemoryRunStore);
  const { auditLog, onApprovalDecided } = options;
  checkAuditOptions(options, problems);
  if (typeof model?.complete !== "function" || typeof model?.stream !== "function") {
    problems.push("model must implement complete() and stream() (e.g. a ReasonerClient).");
  }
  if (
    approver !== undefined &&
    (typeof approver?.ask !== "function" || typeof approver.read !== "function")
  ) {
    problems.push(
      "approver must have ask() and read() methods (an Approver); an approver written for an earlier version has requestApproval() instead: see the migration guide.",
    );
  }
  const missing = missingMethods(runStore, runStoreMethods);
  if (missing.length > 0) {
    problems.push(
      `runStore must implement every RunStore method (e.g. a FileRunStore); it lacks ${missing.map((method) => `${method}()`).join(", ")}. runStoreConformance() in switchyard-agents/testing checks a store of your own.`,
    );
  }
  const runQueue = resolveRunQueue(options.runQueue, options.runStore, runStore, problems);
  if (instructions !== undefined && typeof instructions !== "string") {
    problems.push("instructions must be a string.");
  }
  const maxSteps = positiveInteger(options.maxSteps, 10, "maxSteps", problems);
  const budget = readRunBudget(options.budget, problems);
  const toolConcurrency = positiveInteger(options.toolConcurrency, 4, "toolConcurrency", problems);
  const toolTimeoutMs = positiveInteger(options.toolTimeoutMs, 60_000, "toolTimeoutMs", problems);
  if (toolTimeoutMs > maxTimerMs) problems.push(`toolTimeoutMs must be at most ${maxTimerMs}.`);
  checkRequestOptions(requestOptions, problems);
  const loop = resolveLoopOptions(options, problems);
  if (loop.output && typeof requestOptions === "object" && "response_format" in requestOptions) {
    problems.push(
      "requestOptions.response_format and output both set the answer's form; keep one (output also parses and validates the answer).",
    );
  }
  const tools = collectTools(options.tools ?? [], problems);
  const { approverDirectory } = options;
  checkApproverDirectory(approverDirectory, problems);
  const approvalPolicy = checkApprovalPolicy(
    options.approvalPolicy,
    tools,
    problems,
    approverDirectory !== undefined,
  );
  const onApprovalExpired = options.onApprovalExpired ?? "tell-model";
  if (!approvalExpiryActions.includes(onApprovalExpired)) {
    problems.push(
      `onApprovalExpired must be one of ${approvalExpiryActions.map((action) => `"${action}"`).join(", ")}; got ${JSON.stringify(onApprovalExpired)}.`,
    );
  }
  const maxToolResultChars = positiveInteger(
    options.maxToolResultChars,
    32_000,
    "maxToolResultChars",
    problems,
  );
  if (maxToolResultChars < 1_000) {
    problems.push(
      "maxToolResultChars must be at least 1000, so a cut result still says something.",
    );
  }
  const { stateKey } = options;
  if (
    stateKey !== undefined &&
    (typeof stateKey !== "string" || stateKey.length < minimumStateKeyLength)
  ) {
    problems.push(
      `stateKey must be a string of at least ${minimumStateKeyLength} characters (e.g. 32 random bytes as hex); a short key is guessable.`,
    );
  }
  const given = options.secrets ?? [];
  if (!Array.isArray(given) || given.some((value) => typeof value !== "string")) {
    problems.push("secrets must be an array of strings.");
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  const secrets = new SecretRegistry()
    .add(...given, stateKey)
    .include(secretsOf(model))
    .include(secretsOf(approver));
  for (const tool of tools.values()) secrets.include(secretsOf(tool));

  const toolDefinitions = Object.freeze(
    [...tools.values()].map(
      (tool): ModelToolDefinition =>
        Object.freeze({
          type: "function",
          function: Object.freeze({
            name: tool.name,
            description: tool.description,
            parameters: tool.parameters,
          }),
        }),
    ),
  );
  return {
    model,
    tools,
    toolDefinitions,
    instructions,
    // What the approver is shown has this agent's secrets removed.
    approver: approver === undefined ? undefined : redactingApprover(approver, secrets),
    approverDirectory,
    approvalPolicy,
    onApprovalExpired,
    auditLog,
    onApprovalDecided,
    maxSteps,
    budget,
    toolConcurrency,
    toolTimeoutMs,
    logger: componentLogger(options.logger, "agent", secrets),
    requestOptions: { ...requestOptions },
    runStore,
    ownRunStore,
    runQueue,
    ...loop,
    secrets,
    maxToolResultChars,
    stateKey,
  };
}

/**
 * The queue the agent claims its runs in: `runQueue` when given (checked),
 * none for `false`, else the `runStore` given when it is also a queue (the
 * agent's own in-memory store is not).
 */
function resolveRunQueue(
  runQueue: unknown,
  given: RunStore | undefined,
  runStore: RunStore,
  problems: string[],
): RunQueue | undefined {
  if (runQueue === false) return undefined;
  // The agent's own store is not its queue: its runs are never handed out to
  // a worker, so a new run need not be claimed (a claim and its renewal per run).
  if (runQueue === undefined)
    return given !== undefined && isRunQueue(runStore) ? runStore : undefined;
  if (isRunQueue(runQueue)) {
    if (given === undefined) {
      problems.push(
        "runQueue needs a runStore: the queue hands out runs, the store keeps their states (pass both, or a FileRunStore as runStore, which is both).",
      );
    }
    return runQueue;
  }
  const missing = missingMethods(runQueue, runQueueMethods);
  problems.push(
    `runQueue must implement every RunQueue method (e.g. a PostgresRunStore), or be false; it lacks ${missing.map((method) => `${method}()`).join(", ")}. runQueueConformance() in switchyard-agents/testing checks a queue of your own.`,
  );
  return undefined;
}

/** Adds a problem for an `auditLog` without `append` or an `onApprovalDecided` that is not a function. */
export function checkAuditOptions(
  options: Pick<AgentOptions, "auditLog" | "onApprovalDecided">,
  problems: string[],
): void {
  const { auditLog, onApprovalDecided } = options;
  if (auditLog !== undefined && typeof auditLog?.append !== "function") {
    problems.push("auditLog must have an append(record) method (e.g. a JsonlAuditLog).");
  }
  if (onApprovalDecided !== undefined && typeof onApprovalDecided !== "function") {
    problems.push("onApprovalDecided must be a function that receives each audit record.");
  }
}

/** Checks a value that must be a positive integer when given; returns it or the default. */
export function positiveInteger(
  value: unknown,
  fallback: number,
  name: string,
  problems: string[],
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    problems.push(
      `${name} must be a positive integer; got ${JSON.stringify(value) ?? String(value)}.`,
    );
    return fallback;
  }
  return value;
}

function checkRequestOptions(requestOptions: unknown, problems: string[]): void {
  if (
    typeof requestOptions !== "object" ||
    requestOptions === null ||
    Array.isArray(requestOptions)
  ) {
    problems.push(
      "requestOptions must be an object of chat request fields (model, temperature, ...).",
    );
    return;
  }
  for (const key of ["messages", "tools", "stream"]) {
    if (key in requestOptions) {
      problems.push(
        `requestOptions.${key} is set by the agent; remove it (tools go in the tools option).`,
      );
    }
  }
  if ("extra_body" in requestOptions) {
    problems.push(
      "requestOptions.extra_body is not a model request field; set provider routing and compression on the model (new ReasonerClient({ provider, compression })).",
    );
  }
  const { n } = requestOptions as { n?: unknown };
  if (n !== undefined && n !== 1) {
    problems.push("requestOptions.n must be 1 when given: the agent follows a single answer.");
  }
}

/**
 * The tools by name, each checked; adds one line to `problems` per tool
 * that is not one and per name used twice.
 */
export function collectTools(tools: unknown, problems: string[]): Map<string, AnyTool> {
  const byName = new Map<string, AnyTool>();
  if (!Array.isArray(tools)) {
    problems.push("tools must be an array of tools made with defineTool().");
    return byName;
  }
  const counts = new Map<string, number>();
  tools.forEach((tool: AnyTool, index) => {
    const problem = findToolProblem(tool);
    if (problem) {
      problems.push(`tools[${index}]: ${problem}`);
      return;
    }
    counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
    if (!byName.has(tool.name)) byName.set(tool.name, tool);
  });
  for (const [name, count] of counts) {
    if (count > 1) {
      problems.push(
        `Tool name "${name}" is used by ${count} tools; tool names must be unique within an agent.`,
      );
    }
  }
  return byName;
}

function findToolProblem(tool: AnyTool | undefined): string | undefined {
  if (typeof tool !== "object" || tool === null)
    return "not a tool; build tools with defineTool().";
  const nameProblem = findToolNameProblem(tool.name);
  if (nameProblem) return nameProblem;
  if (typeof tool.execute !== "function" || typeof tool.checkArguments !== "function") {
    return `tool "${tool.name}" lacks execute() or checkArguments(); build tools with defineTool().`;
  }
  if (
    typeof tool.parameters !== "object" ||
    tool.parameters === null ||
    tool.parameters.type !== "object"
  ) {
    return `tool "${tool.name}" parameters must be a JSON Schema of type "object".`;
  }
  const timeoutProblem = findTimeoutProblem(tool.timeoutMs);
  return timeoutProblem ? `tool "${tool.name}" ${timeoutProblem}` : undefined;
}
