import type { ApproverIdentity, RecognisedApprover } from "../approval/approver-directory.js";
import type {
  StandingApproval,
  StandingCoverage,
  StandingScope,
} from "../approval/standing-approval.js";
import type { ModelMessage } from "../model-message.js";

/** The `format` marker every run state carries; anything else is not a run state. */
export const runStateFormat = "switchyard.run-state";

/** The format version this code writes. Versions it can read: 1 to this. */
export const runStateVersion = 1;

/**
 * Where a saved run stands. `running`: a process is (or was, until it
 * crashed) working on it. `suspended`: it waits for an approval answer and
 * can be resumed. The others are final, as in `RunResult.status`.
 */
export type RunStateStatus =
  | "running"
  | "suspended"
  | "completed"
  | "max_steps"
  | "approval_expired"
  | "budget_exhausted"
  | "aborted"
  | "failed";

/** Every status, in the order the docs list them. */
export const runStateStatuses: readonly RunStateStatus[] = [
  "running",
  "suspended",
  "completed",
  "max_steps",
  "approval_expired",
  "budget_exhausted",
  "aborted",
  "failed",
];

/**
 * How far one tool call of the open step got. `requested`: the model asked
 * for it, nothing was decided yet. `awaiting_approval`: the question is out
 * (`approvalId`, `ticket`). `started`: a call of a tool that is not read-only began
 * and no result was recorded; it is never run again. `finished`: its tool message
 * is in `content`.
 */
export type PendingCallPhase = "requested" | "awaiting_approval" | "started" | "finished";

/** How a finished call ended, as `ToolCallRecord.status` says it. */
export type FinishedCallStatus =
  | "succeeded"
  | "invalid_arguments"
  | "unknown_tool"
  | "failed"
  | "timed_out"
  | "refused"
  | "expired"
  | "aborted"
  | "outcome_unknown"
  | "reconciled";

/** Every {@link FinishedCallStatus} (the record's keys: the compiler checks none is missing). */
const everyFinishedCallStatus: Record<FinishedCallStatus, true> = {
  succeeded: true,
  invalid_arguments: true,
  unknown_tool: true,
  failed: true,
  timed_out: true,
  refused: true,
  expired: true,
  aborted: true,
  outcome_unknown: true,
  reconciled: true,
};

/** The statuses a finished call may have, as a saved state is checked against them. */
export const finishedCallStatuses = Object.keys(everyFinishedCallStatus) as FinishedCallStatus[];

/** One tool call of the step the run stopped in. */
export interface PendingToolCall {
  toolCallId: string;
  toolName: string;
  /** The arguments as the model sent them (JSON text), secrets redacted. */
  rawArguments: string;
  /** The parsed, validated arguments, secrets redacted; absent when not valid yet. */
  arguments?: unknown;
  phase: PendingCallPhase;
  /** `sha256:` fingerprint of the tool name and arguments (the approval binds to it). */
  fingerprint?: string;
  /**
   * The agent's id of the call's approval (`awaiting_approval`: the one
   * asked about, read back on resume; `finished`: the one it was decided
   * under). Bound here to this call and `fingerprint`.
   */
  approvalId?: string;
  /** The approver's ticket for the question (`awaiting_approval`): only the approver reads it. */
  ticket?: string;
  /** The approver's interaction holding the question, for people (`awaiting_approval`); never a key. */
  interactionId?: string;
  /** The standing approval the question offered (`awaiting_approval`), as it was stated. */
  standing?: StandingScope;
  /** How the call ended (`finished`). */
  status?: FinishedCallStatus;
  /** The tool message for the model (`finished`). */
  content?: string;
}

/** The approval decision that let a call run, or refused it, as the run recorded it. */
export interface RunApprovalRecord {
  /** `expired`: the question ran out before anyone answered. */
  outcome: "approved" | "refused" | "expired";
  /** `sha256:` fingerprint of the tool name and arguments the decision was about. */
  fingerprint: string;
  /** The agent's id of the approval, when an approver was asked (or a standing approval used). */
  approvalId?: string;
  /** The approver's interaction that held the question, when a person was asked. */
  interactionId?: string;
  /** Who approved, as the approver names them. */
  approvedBy?: string;
  /** Why it was refused (`denied`, `expired`, `fingerprint_mismatch`, ...). */
  code?: string;
  /** The `approvalPolicy` rule that decided without asking anyone. */
  rule?: string;
  /** The standing approval that let the call run without asking anyone. */
  coveredBy?: StandingCoverage;
  /** The scope's fingerprint, when the person also approved the next calls like this one. */
  standing?: string;
  /**
   * With an `approverDirectory`: each person who answered, by directory id
   * and the channel evidence that recognised them.
   */
  people?: RecognisedApprover[];
  /** When the run recorded the decision (ISO 8601). */
  decidedAt: string;
}

/** A tool call that ended, as the run keeps it for people to look back at (`switchyard runs show`). */
export interface FinishedCallRecord {
  toolCallId: string;
  toolName: string;
  /** The model call (step) that asked for it, from 1. */
  stepNumber: number;
  status: FinishedCallStatus;
  /** The approval decision, for a call that needed one. */
  approval?: RunApprovalRecord;
}

/** A call of a run whose outcome is unknown: it had started when its worker stopped, and never ran again. */
export interface OutcomeUnknownCall {
  toolCallId: string;
  toolName: string;
  /** The model call (step) that asked for it, from 1. */
  stepNumber: number;
}

/** The calls of `finishedCalls` whose outcome is unknown, in the order they ended. */
export function outcomeUnknownCallsOf(
  finishedCalls: readonly FinishedCallRecord[] | undefined,
): OutcomeUnknownCall[] {
  return (finishedCalls ?? [])
    .filter((call) => call.status === "outcome_unknown")
    .map(({ toolCallId, toolName, stepNumber }) => ({ toolCallId, toolName, stepNumber }));
}

/**
 * A run's budget as its saved state keeps it: the limits (with the
 * extensions granted so far), what one extension adds, and what was spent.
 * Tokens spent are the state's `usage` (prompt + completion).
 */
export interface RunBudgetState {
  maxToolCalls?: number;
  maxTokens?: number;
  onExhausted: "stop" | "ask";
  extendBy?: { toolCalls: number; tokens: number };
  /** Tool calls the model asked for so far that were let through the budget. */
  toolCalls: number;
  /** Extensions asked for so far (each has its own question and fingerprint). */
  extensions: number;
  /** Random, made when the run starts: an extension's fingerprint names this run's budget alone. */
  budgetId: string;
  /**
   * The model asked for calls beyond the tool-call budget: they did not run,
   * and the run ends before its next model call. `why`: how the extension
   * question ended, when one was asked.
   */
  overrun?: { why: string };
}

/**
 * A run saved so it can go on in another process: versioned JSON holding the
 * conversation, the step count, usage so far and the tool calls of the step
 * the run stopped in. Secrets are redacted before it is saved or returned.
 *
 * When `pendingCalls` is not empty, the last message is the assistant
 * message that asked for exactly those calls (same ids, same order) and its
 * tool messages are not in `messages` yet: they are added, in that order,
 * once every call is finished.
 */
export interface RunState {
  format: typeof runStateFormat;
  version: typeof runStateVersion;
  runId: string;
  /**
   * How many times the run was saved to a run store: 0 for a state never
   * stored, and one more on each save. A resume with a store goes on only
   * from the stored state, and only when the state given has the same
   * revision; timestamps are not compared, as clocks differ between machines.
   * States written before it existed read as 0.
   */
  revision: number;
  status: RunStateStatus;
  /** The caller's labels given in `RunOptions.metadata`, kept (redacted) across resumes. */
  metadata?: Record<string, string>;
  /**
   * Who started the run (`RunOptions.startedBy`): a person's id in the
   * agent's `approverDirectory`, or their identity on a channel. Kept
   * across resumes: their answers do not count where self-approval is not allowed.
   */
  startedBy?: string | ApproverIdentity;
  /** ISO 8601 timestamps. */
  createdAt: string;
  updatedAt: string;
  /** The step budget of the run (model calls). */
  maxSteps: number;
  /** Model calls made so far; the open step, when there is one, is the last of them. */
  stepCount: number;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
  /**
   * The run's `budget`: its limits (with the extensions granted) and the
   * tool calls counted so far, so a resumed run goes on with what is left
   * rather than a fresh budget. Absent when the run has none.
   */
  budget?: RunBudgetState;
  messages: ModelMessage[];
  pendingCalls: PendingToolCall[];
  /** Why the run stopped, for `failed`, `aborted` and `max_steps`. */
  error?: { name: string; message: string };
  /**
   * The ids of the approvals that let a call of this run run: each lets
   * its action run once, so a resume refuses to use one again.
   */
  usedApprovals?: string[];
  /**
   * Every tool call that ended, oldest first, with its status and approval:
   * what the conversation's tool messages do not say. States written before
   * it existed have none.
   */
  finishedCalls?: FinishedCallRecord[];
  /**
   * The standing approvals people gave in this run, with the uses each has
   * covered so far (each use is spent once, like an approval).
   */
  standingApprovals?: StandingApproval[];
  /**
   * Fingerprints of the actions a person denied in this run: no standing
   * approval ever runs one of them.
   */
  deniedActions?: string[];
  /**
   * The run's secret the ids of its approvals are derived from (with each
   * call's content), so a run that goes on from this state after a crash
   * names the same action's approval alike and asks its question once.
   */
  approvalIdSeed?: string;
  /**
   * `hmac-sha256:<hex>` over the rest of the state, when the agent has a
   * `stateKey`; a resume with the key refuses a state it does not match.
   */
  seal?: string;
}
