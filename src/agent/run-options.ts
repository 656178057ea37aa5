import type { ApproverIdentity } from "./approval/approver-directory.js";
import type { RunClaim } from "./durable/run-queue.js";
import type { RunBudget } from "./run-budget.js";
import type { StopWhen } from "./stop-conditions.js";
import type { OutputSchema } from "./structured-output.js";

/**
 * Options of one run or resume that override the agent's loop options
 * (`ToolName`: the names of the agent's tools).
 */
export interface RunLoopOverrides<
  Schema extends OutputSchema | undefined = undefined,
  ToolName extends string = string,
> {
  /**
   * This run's structured output, over the agent's `output`; `result.output`
   * is typed from it. See `AgentLoopOptions.output`.
   */
  output?: Schema;
  /**
   * This run's stop conditions, instead of the agent's `stopWhen`; naming
   * only the agent's tools.
   */
  stopWhen?: StopWhen<ToolName> | undefined;
}

/** Options of one run (`agent.run()`, `agent.stream()`). */
export interface RunOptions<
  Schema extends OutputSchema | undefined = undefined,
  ToolName extends string = string,
> extends RunLoopOverrides<Schema, ToolName> {
  /** Stops the run: the model request, running tools and a pending approval. */
  signal?: AbortSignal | undefined;
  /** Overrides the agent's `maxSteps` for this run. */
  maxSteps?: number | undefined;
  /** This run's budget, instead of the agent's `budget`. See `RunBudget`. */
  budget?: RunBudget | undefined;
  /**
   * Read the approver's answers with `allowPending`: when it answers
   * `pending`, the run ends with status `suspended` and a state to
   * `resume()` later (in this process or another), keeping the question's
   * ticket, instead of waiting. The other calls of the same answer still
   * run or are refused as usual. A call whose arguments hold a secret cannot be
   * saved, so its approval is waited for as without this option.
   * @default false
   */
  suspendOnApproval?: boolean | undefined;
  /**
   * The run's id (1 to 128 letters, digits, `_`, `.`, `-`); it must not be
   * taken already in the agent's run store.
   * @default a new id (`run_<UTC time>_<8 hex>`)
   */
  runId?: string | undefined;
  /**
   * Labels of the caller's own (a ticket id, who started the run), saved
   * with the run's state (redacted like the rest of it) and kept when
   * it is resumed: `result.state.metadata`. String values only.
   */
  metadata?: Record<string, string> | undefined;
  /**
   * Who started the run: a person's id in the agent's `approverDirectory`,
   * or their identity on the channel they started it from (the AG-UI
   * handler gives its `authorize` principal, the command line its local
   * user). Saved with the run's state and kept when it is resumed. With a
   * directory, that person's answer does not count for a rule that does
   * not `allowSelfApproval` (refused, code `self_approval`).
   */
  startedBy?: string | ApproverIdentity | undefined;
}

/** Options of `agent.resume()` and `agent.resumeStream()`. */
export interface ResumeOptions<
  Schema extends OutputSchema | undefined = undefined,
  ToolName extends string = string,
> extends RunLoopOverrides<Schema, ToolName> {
  /** Stops the resumed run. */
  signal?: AbortSignal | undefined;
  /** Overrides the step budget saved with the run (model calls in all, not from now). */
  maxSteps?: number | undefined;
  /**
   * New limits for the resumed run, instead of those saved with it (tool
   * calls and tokens in all, not from now): what the run spent before still
   * counts. See `RunBudget`.
   */
  budget?: RunBudget | undefined;
  /**
   * Whether new approval requests of the resumed run may suspend it again.
   * Answers still pending from before always suspend it again.
   * @default true when the agent has an approver
   */
  suspendOnApproval?: boolean | undefined;
  /**
   * Resume a run marked `running`, or claimed by another process: that
   * process crashed or was killed. A destructive call it had started is not
   * run again; the model is told its outcome is unknown. Only when you know
   * no other process works on the run.
   * @default false
   */
  takeOver?: boolean | undefined;
  /**
   * A claim the caller already holds on this run (e.g. `RunWorker`'s, from
   * `runStore.claimNext()`): the run is not claimed again, every save is
   * fenced by it, and it is left for the caller to release. A recovered
   * claim (its holder died) lets a run marked `running` go on, as
   * `takeOver` does.
   * @default the agent claims the run itself when the store can
   */
  claim?: RunClaim | undefined;
}
