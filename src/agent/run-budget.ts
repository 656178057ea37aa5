import { randomUUID } from "node:crypto";
import { SwitchyardError } from "../errors/switchyard-error.js";
import { actionFingerprint } from "../internal/canonical-json.js";
import { redactValue, type SecretRegistry } from "../internal/redact.js";
import type { ActionDetail } from "../tools/tool.js";
import type { AgentEventSink } from "./agent-events.js";
import {
  type ApprovalAuditSinks,
  publishApprovalDecision,
} from "./approval/approval-audit-record.js";
import { newApprovalId } from "./approval/approval-id.js";
import type { DefaultApprovers } from "./approval/approval-rule.js";
import type { ApproverDirectory } from "./approval/approver-directory.js";
import { requirementOf } from "./approval/approver-requirement.js";
import {
  type ApproverCheck,
  checkApprovers,
  whoMayApproveFor,
} from "./approval/check-approvers.js";
import type { RunStarter } from "./approval/run-starter.js";
import {
  type ApprovalRecord,
  type ApprovedRecord,
  consultApprover,
  gateRefusal,
  type PendingRecord,
  type RefusedRecord,
} from "./approval-gate.js";
import type { ApprovalAction, ApprovalContext, Approver } from "./approver.js";
import { showApprovalAction } from "./build-approval-action.js";
import type { RunBudgetState } from "./durable/run-state.js";
import type { ModelToolCall } from "./model-message.js";
import type { RunUsage, ToolCallRecord } from "./run-result.js";
import { toolMessages } from "./tool-messages.js";

/**
 * How much one run may spend, counted over the whole run, across suspends
 * and resumes: tool calls the model asks for, and tokens (input + output, as
 * the model reports its usage). When a limit is reached the run ends with
 * status `budget_exhausted`, or, with `onExhausted: "ask"`, the approver is
 * asked whether to extend it by `extendBy`; anything but an explicit
 * approval of that exact extension ends the run with `budget_exhausted`.
 *
 * @example
 * budget: { maxToolCalls: 20, maxTokens: 200_000, onExhausted: "ask", extendBy: { toolCalls: 10, tokens: 50_000 } }
 */
export interface RunBudget {
  /** Tool calls the model may ask for in the run, whatever their outcome. */
  maxToolCalls?: number | undefined;
  /** Input + output tokens the run's model calls may use, as the model reports them. */
  maxTokens?: number | undefined;
  /**
   * `stop`: the run ends with status `budget_exhausted`. `ask`: the approver
   * is asked to allow `extendBy` more, once per extension.
   * @default "stop"
   */
  onExhausted?: "stop" | "ask" | undefined;
  /**
   * How much one extension adds, as the question states it. Needed with
   * `onExhausted: "ask"`: `toolCalls` when `maxToolCalls` is set, `tokens`
   * when `maxTokens` is set.
   */
  extendBy?: BudgetExtension | undefined;
}

/** What one approved extension adds to a run's budget. */
export interface BudgetExtension {
  /** More tool calls. @default 0 */
  toolCalls?: number | undefined;
  /** More tokens (input + output). @default 0 */
  tokens?: number | undefined;
}

/** Which limit ended a run. */
export type BudgetLimit = "toolCalls" | "tokens";

/** Why a run ended with status `budget_exhausted`. */
export class BudgetExhaustedError extends SwitchyardError {
  override readonly name = "BudgetExhaustedError";
  /** The limit that was reached. */
  readonly limit: BudgetLimit;
  /** The limit, with the extensions granted. */
  readonly max: number;
  /** What the run had spent of it. */
  readonly used: number;
  /**
   * The message without its advice: which budget was reached and why it was
   * not extended, for a caller that words the way out in its own terms
   * (the command line names its flags).
   */
  readonly reached: string;

  constructor(limit: BudgetLimit, max: number, used: number, why: string) {
    const what = limit === "toolCalls" ? "tool call" : "token";
    const reached = `The run reached its budget of ${formatCount(max)} ${what}${max === 1 ? "" : "s"} (${formatCount(used)} used)${why}.`;
    super(
      `${reached} Start a new run with a larger budget, or with onExhausted: "ask" to let a person extend it.`,
    );
    this.limit = limit;
    this.max = max;
    this.used = used;
    this.reached = reached;
  }
}

/** Checks a `budget` option; `undefined` when none is given. */
export function readRunBudget(value: unknown, problems: string[]): RunBudget | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(
      "budget must be an object: { maxToolCalls?, maxTokens?, onExhausted?, extendBy? }.",
    );
    return undefined;
  }
  const budget = value as Record<string, unknown>;
  for (const key of Object.keys(budget)) {
    if (!["maxToolCalls", "maxTokens", "onExhausted", "extendBy"].includes(key)) {
      problems.push(
        `budget has an unknown field "${key}"; known: maxToolCalls, maxTokens, onExhausted, extendBy.`,
      );
    }
  }
  const before = problems.length;
  wholeNumber(budget.maxToolCalls, "budget.maxToolCalls", 0, problems);
  wholeNumber(budget.maxTokens, "budget.maxTokens", 0, problems);
  const { onExhausted, extendBy } = budget;
  if (onExhausted !== undefined && onExhausted !== "stop" && onExhausted !== "ask") {
    problems.push(
      `budget.onExhausted must be "stop" or "ask"; got ${JSON.stringify(onExhausted)}.`,
    );
  }
  if (extendBy !== undefined) {
    if (typeof extendBy !== "object" || extendBy === null || Array.isArray(extendBy)) {
      problems.push("budget.extendBy must be an object: { toolCalls?, tokens? }.");
    } else {
      const extension = extendBy as Record<string, unknown>;
      wholeNumber(extension.toolCalls, "budget.extendBy.toolCalls", 0, problems);
      wholeNumber(extension.tokens, "budget.extendBy.tokens", 0, problems);
    }
  }
  if (onExhausted === "ask" && problems.length === before) {
    const extension = (extendBy ?? {}) as BudgetExtension;
    if (budget.maxToolCalls !== undefined && !(Number(extension.toolCalls) > 0)) {
      problems.push(
        'budget.onExhausted "ask" with maxToolCalls needs extendBy.toolCalls (how many more tool calls an extension allows), e.g. extendBy: { toolCalls: 10 }.',
      );
    }
    if (budget.maxTokens !== undefined && !(Number(extension.tokens) > 0)) {
      problems.push(
        'budget.onExhausted "ask" with maxTokens needs extendBy.tokens (how many more tokens an extension allows), e.g. extendBy: { tokens: 50000 }.',
      );
    }
  }
  return problems.length === before ? (value as RunBudget) : undefined;
}

/**
 * The budget a run starts or goes on with: a run's own `budget` option sets
 * the limits (over the agent's, or over those a resumed run saved); what was
 * spent and the extensions asked for always come from the saved state.
 */
export function startRunBudget(
  budget: RunBudget | undefined,
  saved: RunBudgetState | undefined,
): RunBudgetState | undefined {
  if (!budget) return saved ? { ...saved } : undefined;
  const extendBy = budget.extendBy
    ? { toolCalls: budget.extendBy.toolCalls ?? 0, tokens: budget.extendBy.tokens ?? 0 }
    : undefined;
  return {
    ...(budget.maxToolCalls !== undefined ? { maxToolCalls: budget.maxToolCalls } : {}),
    ...(budget.maxTokens !== undefined ? { maxTokens: budget.maxTokens } : {}),
    onExhausted: budget.onExhausted ?? "stop",
    ...(extendBy ? { extendBy } : {}),
    toolCalls: saved?.toolCalls ?? 0,
    extensions: saved?.extensions ?? 0,
    budgetId: saved?.budgetId ?? randomUUID(),
    ...(saved?.overrun ? { overrun: { ...saved.overrun } } : {}),
  };
}

/** Tokens a run has spent against its budget: input + output of every model call. */
export function budgetTokensUsed(usage: RunUsage): number {
  return usage.promptTokens + usage.completionTokens;
}

/** What asking to extend a budget needs: the approver, the audit sinks, the run, its events. */
export interface BudgetContext {
  budget: RunBudgetState;
  usage: RunUsage;
  runId: string | undefined;
  approver: Approver | undefined;
  /** Binds an interaction to its question in the run store, for the approver (`ApprovalContext.bindInteraction`). */
  bindInteraction?: ApprovalContext["bindInteraction"] | undefined;
  /** Every secret the agent knows of: the question shows them as placeholders. */
  secrets: SecretRegistry;
  audit: ApprovalAuditSinks;
  signal: AbortSignal;
  /** The run's events: a question to extend the budget is an `approval-request` and its `approval-result`. */
  emit: AgentEventSink;
  /** Who may approve (`AgentOptions.approverDirectory`); an extension is answered by `defaultApprovers`. */
  approverDirectory?: ApproverDirectory | undefined;
  /** `approvalPolicy.defaultApprovers`: who may approve an extension, with a directory. */
  defaultApprovers?: DefaultApprovers | undefined;
  /** Who started the run, as the directory knows them (read when a question is asked). */
  starter?: (() => RunStarter | undefined) | undefined;
}

/**
 * Before a model call: `undefined` when the run may call the model, or why
 * it must end. A token budget reached (or the model having asked for calls
 * beyond the tool-call budget) asks for an extension first when the budget
 * says so.
 */
export async function checkBudgetBeforeModelCall(
  context: BudgetContext,
  stepNumber: number,
): Promise<BudgetExhaustedError | undefined> {
  const { budget } = context;
  const overrun = budgetOverrunError(budget);
  if (overrun) return overrun;
  for (;;) {
    if (budget.maxTokens === undefined) return undefined;
    const used = budgetTokensUsed(context.usage);
    if (used < budget.maxTokens) return undefined;
    const refusal = await askToExtend(context, { stepNumber, calls: [] });
    if (refusal !== undefined) {
      return new BudgetExhaustedError("tokens", budget.maxTokens, used, refusal);
    }
  }
}

/** Why the run ends, when the model asked for calls beyond its tool-call budget. */
export function budgetOverrunError(budget: RunBudgetState): BudgetExhaustedError | undefined {
  if (!budget.overrun) return undefined;
  const max = budget.maxToolCalls ?? 0;
  return new BudgetExhaustedError("toolCalls", max, budget.toolCalls, budget.overrun.why);
}

/**
 * Lets a step's calls through the tool-call budget, in the order the model
 * asked: those within it (counted), and the records of those beyond it,
 * which do not run (their tool message says why). Asks for extensions first
 * when the budget says so. With calls beyond it, the run ends before its
 * next model call (`overrun`). Without a budget every call is admitted.
 */
export async function admitToolCalls(
  calls: ModelToolCall[],
  context: BudgetContext | undefined,
  stepNumber: number,
): Promise<{ admitted: ModelToolCall[]; beyondBudget: ToolCallRecord[] }> {
  if (!context) return { admitted: calls, beyondBudget: [] };
  const { budget } = context;
  // Below 0 when a resumed run's budget was lowered under what it spent.
  const roomLeft = () =>
    budget.maxToolCalls === undefined
      ? Number.POSITIVE_INFINITY
      : budget.maxToolCalls - budget.toolCalls;
  let room = roomLeft();
  let refusal: string | undefined;
  while (refusal === undefined && room < calls.length) {
    // The question shows the calls that would not run without the extension.
    refusal = await askToExtend(context, { stepNumber, calls: calls.slice(Math.max(0, room)) });
    room = roomLeft();
  }
  const admittedCount = Math.max(0, room);
  const admitted = calls.slice(0, admittedCount);
  const beyond = calls.slice(admittedCount);
  budget.toolCalls += admitted.length;
  if (beyond.length > 0) budget.overrun = { why: refusal ?? "" };
  return { admitted, beyondBudget: beyond.map((call) => beyondBudgetRecord(call, budget)) };
}

/** The record of a call that did not run because the tool-call budget was spent. */
function beyondBudgetRecord(call: ModelToolCall, budget: RunBudgetState): ToolCallRecord {
  return {
    toolCallId: call.id,
    toolName: call.function.name,
    rawArguments: call.function.arguments,
    status: "refused",
    content: toolMessages.budgetExhausted(call.function.name, budget.maxToolCalls ?? 0),
  };
}

/** The tool name an extension question carries, in the audit trail and the fingerprint. */
export const budgetExtensionToolName = "extend_run_budget";

/** What the agent does next if the budget is extended: the calls beyond it, or (none) its next model call. */
interface NextInRun {
  stepNumber: number;
  calls: readonly ModelToolCall[];
}

/**
 * Asks the approver to extend the budget by `extendBy`, through the same
 * gate, audit trail and events as a tool call. `undefined` when it was
 * approved (the limits are raised); otherwise why not, as words to add to
 * the error.
 */
async function askToExtend(context: BudgetContext, next: NextInRun): Promise<string | undefined> {
  const { budget } = context;
  if (budget.onExhausted !== "ask" || !budget.extendBy) return "";
  budget.extensions += 1;
  // With a directory, an extension is answered by the people `defaultApprovers` names, judged as any answer.
  const directory = context.approverDirectory;
  const check: ApproverCheck | undefined = directory && {
    directory,
    requirement: requirementOf(context.defaultApprovers),
    starter: context.starter?.(),
    logger: context.audit.logger,
  };
  const whoMayApprove = check ? await whoMayApproveFor(check) : undefined;
  const failed = whoMayApprove && "failed" in whoMayApprove ? whoMayApprove.failed : undefined;
  // The question's one view, built here as the gate builds a tool call's.
  const action = showApprovalAction(
    {
      ...extensionAction(context, next.calls),
      ...(whoMayApprove && !("failed" in whoMayApprove) ? { whoMayApprove } : {}),
    },
    context.secrets,
  );
  const { stepNumber } = next;
  if (failed === undefined) {
    context.emit({ type: "approval-request", stepNumber, toolCallId: action.toolCallId, action });
  }
  const requestedAt = new Date();
  // Never pending: this question is waited for (allowPending unset). Nobody is asked when the
  // directory could not say whom.
  const [answered] =
    failed !== undefined
      ? [gateRefusal(action, "approver_error", failed)]
      : ((await consultApprover({
          approver: context.approver,
          actions: [action],
          signal: context.signal,
          logger: context.audit.logger,
          ...(context.runId !== undefined ? { runId: context.runId } : {}),
          ...(context.bindInteraction !== undefined
            ? { bindInteraction: context.bindInteraction }
            : {}),
        })) as [Exclude<ApprovalRecord, PendingRecord>]);
  const gated = check ? await checkApprovers(answered, check) : answered;
  const decision = await publishApprovalDecision(
    context.audit,
    { toolName: action.toolName, toolCallId: action.toolCallId, runId: context.runId },
    gated.outcome === "approved" && gated.edited !== undefined ? editedExtension(gated) : gated,
    requestedAt,
  );
  context.emit({
    type: "approval-result",
    stepNumber,
    toolCallId: action.toolCallId,
    toolName: action.toolName,
    approval: decision,
  });
  if (decision.outcome === "approved") {
    const { toolCalls, tokens } = budget.extendBy;
    if (budget.maxToolCalls !== undefined) budget.maxToolCalls += toolCalls;
    if (budget.maxTokens !== undefined) budget.maxTokens += tokens;
    return undefined;
  }
  return decision.outcome === "expired"
    ? `; nobody answered the question to extend it before it expired (${decision.reason})`
    : `; the extension was not approved (${decision.code}: ${decision.reason})`;
}

/**
 * An extension the person changed before approving it is not the extension
 * asked about: the run grows only by `extendBy`, as the question stated, so
 * a changed one (fewer calls, say) is refused rather than granted in full.
 */
function editedExtension(approval: ApprovedRecord): RefusedRecord {
  return {
    outcome: "refused",
    fingerprint: approval.fingerprint,
    code: "invalid_edit",
    reason:
      "the person changed the extension before approving it, and a budget grows only by the extension asked about, so it was not extended",
    ...(approval.approvalId !== undefined ? { approvalId: approval.approvalId } : {}),
    ...(approval.interactionId !== undefined ? { interactionId: approval.interactionId } : {}),
    ...(approval.approverLink !== undefined ? { approverLink: approval.approverLink } : {}),
  };
}

/**
 * The question to extend the budget: exactly the extension, numbered, bound
 * to this run's budget, and what the agent wants to do with it (the calls
 * beyond the budget, each tool with its arguments as JSON, redacted as in
 * any question), so the person knows what they allow.
 */
function extensionAction(context: BudgetContext, calls: readonly ModelToolCall[]): ApprovalAction {
  const { budget } = context;
  const extendBy = budget.extendBy ?? { toolCalls: 0, tokens: 0 };
  const toolCalls = budget.maxToolCalls !== undefined ? extendBy.toolCalls : 0;
  const tokens = budget.maxTokens !== undefined ? extendBy.tokens : 0;
  const args = {
    budgetId: budget.budgetId,
    ...(context.runId !== undefined ? { runId: context.runId } : {}),
    extension: budget.extensions,
    moreToolCalls: toolCalls,
    moreTokens: tokens,
  };
  const spent: string[] = [];
  if (budget.maxToolCalls !== undefined) {
    spent.push(
      `${formatCount(budget.toolCalls)} of ${formatCount(budget.maxToolCalls)} tool calls`,
    );
  }
  if (budget.maxTokens !== undefined) {
    const used = budgetTokensUsed(context.usage);
    spent.push(`${formatCount(used)} of ${formatCount(budget.maxTokens)} tokens`);
  }
  return {
    approvalId: newApprovalId(context.runId),
    toolName: budgetExtensionToolName,
    toolCallId: `budget-extension-${budget.extensions}`,
    arguments: args,
    fingerprint: actionFingerprint(budgetExtensionToolName, args),
    description: {
      summary: `Allow ${describeExtension(toolCalls, tokens)} in this run.`,
      details: [
        nextDetail(calls),
        { label: "spent so far", value: spent.join(", ") },
        { label: "extension", value: `number ${budget.extensions} of this run` },
        ...(context.runId !== undefined ? [{ label: "run", value: context.runId }] : []),
      ],
      irreversible: false,
    },
  };
}

/**
 * What the agent wants to do next: the tool calls waiting for the extension,
 * one line of JSON each (the tool and its parsed arguments; arguments that
 * are not JSON as their text), secrets redacted; or, with none, its next
 * model call.
 */
function nextDetail(calls: readonly ModelToolCall[]): ActionDetail {
  if (calls.length === 0) {
    return { label: "next, if extended", value: "the agent calls the model again" };
  }
  const waiting = calls.map((call) => ({
    tool: call.function.name,
    arguments: parseArguments(call.function.arguments),
  }));
  return {
    label:
      calls.length === 1
        ? "next, if extended: this tool call (JSON)"
        : `next, if extended: these ${calls.length} tool calls (JSON, one a line)`,
    text: waiting.map((call) => JSON.stringify(redactValue(call))).join("\n"),
    writtenByAgent: true,
  };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `10 more tool calls and 50,000 more tokens`. */
export function describeExtension(toolCalls: number, tokens: number): string {
  const parts: string[] = [];
  if (toolCalls > 0)
    parts.push(`${formatCount(toolCalls)} more tool call${toolCalls === 1 ? "" : "s"}`);
  if (tokens > 0) parts.push(`${formatCount(tokens)} more token${tokens === 1 ? "" : "s"}`);
  return parts.join(" and ");
}

function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}

function wholeNumber(value: unknown, name: string, minimum: number, problems: string[]): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < minimum) {
    problems.push(
      `${name} must be a whole number from ${minimum}; got ${JSON.stringify(value) ?? String(value)}.`,
    );
  }
}

/** Reads the `budget` of a saved run state; `undefined` when it has none. */
export function readRunBudgetState(value: unknown, problems: string[]): RunBudgetState | undefined {
  if (value === undefined) return undefined;
  const fields = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const before = problems.length;
  const count = (key: string, field: unknown, optional: boolean) => {
    if (optional && field === undefined) return;
    if (typeof field !== "number" || !Number.isSafeInteger(field) || field < 0) {
      problems.push(
        `budget.${key} must be a whole number from 0${optional ? " when present" : ""}`,
      );
    }
  };
  count("maxToolCalls", fields.maxToolCalls, true);
  count("maxTokens", fields.maxTokens, true);
  count("toolCalls", fields.toolCalls, false);
  count("extensions", fields.extensions, false);
  if (fields.onExhausted !== "stop" && fields.onExhausted !== "ask") {
    problems.push('budget.onExhausted must be "stop" or "ask"');
  }
  if (typeof fields.budgetId !== "string" || fields.budgetId === "") {
    problems.push("budget.budgetId must be a string");
  }
  const extendBy = fields.extendBy as Record<string, unknown> | undefined;
  if (extendBy !== undefined) {
    count("extendBy.toolCalls", extendBy?.toolCalls, false);
    count("extendBy.tokens", extendBy?.tokens, false);
  }
  const overrun = fields.overrun as Record<string, unknown> | undefined;
  if (overrun !== undefined && typeof overrun?.why !== "string") {
    problems.push("budget.overrun must be { why: string } when present");
  }
  return problems.length === before
    ? (structuredClone(fields) as unknown as RunBudgetState)
    : undefined;
}
