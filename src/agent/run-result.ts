import { SwitchyardError } from "../errors/switchyard-error.js";
import type { AbortedError } from "../errors/transport-errors.js";
import type { ApprovalRecord, ExpiredRecord, PendingRecord } from "./approval-gate.js";
import type { OutcomeUnknownCall, RunState } from "./durable/run-state.js";
import type { InvalidToolInputError, ToolExecutionError, ToolTimeoutError } from "./errors.js";
import type { ModelUsage } from "./model.js";
import type { AssistantModelMessage, ModelMessage } from "./model-message.js";

/**
 * How a run ended. `completed`: the model answered without asking for tools.
 * `max_steps`: the step budget ran out. `aborted`: the caller's signal fired.
 * `failed`: the model could not be reached or answered something unusable
 * (or the run's state could not be saved). `suspended`: an approval is
 * pending (`suspendOnApproval`); `agent.resume(state)` goes on later.
 * `approval_expired`: nobody answered an approval question before it
 * expired and the agent's `onApprovalExpired` is `end`.
 * `budget_exhausted`: the run reached its `budget` (tool calls or tokens)
 * and it was not extended.
 */
export type RunStatus =
  | "completed"
  | "max_steps"
  | "approval_expired"
  | "budget_exhausted"
  | "aborted"
  | "failed"
  | "suspended";

/** Tokens summed over every model call of a run. */
export interface RunUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** What every tool call record holds, whatever its outcome. */
export interface ToolCallRecordBase {
  toolCallId: string;
  toolName: string;
  /** The arguments as the model sent them (raw JSON text). */
  rawArguments: string;
  /** The parsed, validated arguments; absent when they were not valid. */
  arguments?: unknown;
  /** The tool message the model was given for this call. */
  content: string;
  /** The approval decision, when the tool needed one. */
  approval?: ApprovalRecord;
}

/**
 * One tool call and its outcome. `succeeded` holds the tool's result as it
 * returned it; the model saw a redacted JSON copy (`content`).
 * `awaiting_approval`: the run suspends until the answer comes; there is no
 * tool message yet (`content` is empty). `outcome_unknown`: a destructive
 * call had started when an earlier process stopped, and it is not run again.
 * `reconciled`: such a call whose tool could ask the service what took
 * effect (`Tool.reconcile`): what was done is known, what was not was done
 * then; `result` says which.
 * `expired`: nobody answered the approval question before it expired; the
 * call did not run, and it was not refused. `refused` with no `approval`:
 * the run's `budget` of tool calls was spent, so the call did not run.
 */
export type ToolCallRecord = ToolCallRecordBase &
  (
    | { status: "succeeded"; result: unknown }
    | { status: "invalid_arguments"; error: InvalidToolInputError }
    | { status: "unknown_tool" }
    | { status: "failed"; error: ToolExecutionError }
    | { status: "timed_out"; error: ToolTimeoutError }
    | { status: "refused" }
    | { status: "expired"; approval: ExpiredRecord }
    | { status: "aborted"; error: AbortedError }
    | { status: "awaiting_approval"; approval: PendingRecord }
    | { status: "outcome_unknown" }
    | { status: "reconciled"; result: unknown }
  );

/** How a tool call ended. */
export type ToolCallStatus = ToolCallRecord["status"];

/** One model call and the tool calls it asked for. */
export interface RunStep {
  /** 1 for the first model call of the run. */
  stepNumber: number;
  /** The assistant message, as added to the conversation. */
  message: AssistantModelMessage;
  finishReason: string | null;
  /** The model call's usage, when the service reported it (not on a resumed step). */
  usage: ModelUsage | undefined;
  /** In the order the model asked for them. */
  toolCalls: ToolCallRecord[];
}

/**
 * How a run ended, with the error when it did not complete: `failed`,
 * `aborted` and `max_steps` always carry one, `completed` and `suspended`
 * never, so `result.error.message` type-checks once the status is checked.
 */
export type RunOutcome =
  | { status: "completed" | "suspended"; error?: undefined }
  | {
      status: "failed" | "aborted" | "max_steps" | "approval_expired" | "budget_exhausted";
      /**
       * Why the run did not complete: `AbortedError`, `MaxStepsExceededError`,
       * `ApprovalExpiredError`, `BudgetExhaustedError`,
       * the model's error (an `ApiError`, `ConnectionError`, ...), or a
       * `RunStoreError` when the run's state could not be saved.
       */
      error: Error;
    };

/**
 * What a run returns, however it ended. A run never rejects for a model
 * error, an abort or the step budget: it resolves with the status, the
 * partial conversation and `error`.
 *
 * @example
 * const result = await agent.run(task);
 * if (result.status === "failed") console.error(result.error.message);
 */
export type RunResult<Output = string> = RunOutcome & {
  /**
   * The text of the last assistant message; `""` when there is none. With
   * an `output` schema: the parsed, validated answer of a `completed` run,
   * `undefined` otherwise (and when `stopWhen` ended it).
   */
  output: Output;
  /**
   * The whole conversation: the instructions' system message, the input, and
   * every assistant and tool message. Each tool call has its tool message, so
   * the conversation can be sent again to continue.
   */
  messages: ModelMessage[];
  /**
   * The steps of this call. After `resume()`, the first is the step the run
   * had stopped in, holding only the tool calls settled now; step numbers
   * go on from the saved run's. A `suspended` run's last step holds its
   * `awaiting_approval` calls.
   */
  steps: RunStep[];
  usage: RunUsage;
  /** The run's id (every run has one); absent only when the run could not start. */
  runId?: string;
  /**
   * Calls of the run whose outcome is unknown: each had started when an
   * earlier worker stopped (or was asked again under a new id after it had
   * started), and was not run again; whether it took effect nobody knows.
   * The whole run's, not only this process's; absent when there are none.
   * A `completed` run with one did not do everything it was asked for, as
   * far as anyone knows: check it before you count it done.
   */
  outcomeUnknownCalls?: OutcomeUnknownCall[];
  /**
   * The run's saved state (redacted). Pass it to `agent.resume()` to go on
   * with a `suspended` run. When a save failed (status `failed`,
   * `RunStoreError`), it is the state that could not be saved. Always there
   * with a `runStore` and for a suspended run; an agent without a
   * `runStore` builds the state of a run that ended only for a run started
   * with `suspendOnApproval` or a `runId`, or resumed (an ended run cannot
   * be resumed, and building the state is most of a short run's own cost).
   */
  state?: RunState;
};

/**
 * The outcome for a status and the error the loop has for it. A status that
 * needs an error and has none (a bug) still gets one, naming the status.
 */
export function runOutcome(status: RunStatus, error: Error | undefined): RunOutcome {
  if (status === "completed" || status === "suspended") return { status };
  return {
    status,
    error: error ?? new SwitchyardError(`The run ended "${status}" without saying why`),
  };
}

/** Zero usage, the start of a sum. */
export function emptyUsage(): RunUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}

/** Adds one model call's usage to a running total (in place). */
export function addUsage(total: RunUsage, usage: ModelUsage | undefined): void {
  if (!usage) return;
  total.promptTokens += finiteOrZero(usage.prompt_tokens);
  total.completionTokens += finiteOrZero(usage.completion_tokens);
  total.totalTokens += finiteOrZero(usage.total_tokens);
}

function finiteOrZero(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
