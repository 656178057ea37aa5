import type { Logger } from "pino";
import { attachSecrets } from "../internal/redact.js";
import type { AnyTool } from "../tools/tool.js";
import type { AgentEventSink } from "./agent-events.js";
import { type AgentOptions, type AgentSettings, resolveAgentOptions } from "./agent-options.js";
import { AgentStream } from "./agent-stream.js";
import { ungatedToolNames, warnApprovalsTurnedOff } from "./approval/approval-policy.js";
import type { ApprovalPeek } from "./approver.js";
import type { ModelCallMode } from "./call-model.js";
import { endRunFailed } from "./durable/end-run-failed.js";
import { keepClaimRenewed } from "./durable/keep-claim-renewed.js";
import { peekPendingAnswers } from "./durable/peek-pending-answers.js";
import { checkResumeRequest, openResumedRun } from "./durable/prepare-resume.js";
import type { RunClaim } from "./durable/run-queue.js";
import type { RunState } from "./durable/run-state.js";
import { watchClaim } from "./durable/watch-claim.js";
import { resolveRunLoopOverrides } from "./loop-options.js";
import type { ModelMessage, ModelToolDefinition } from "./model-message.js";
import { claimNewRun, type PreparedRun, prepareRun } from "./prepare-run.js";
import { runLoop } from "./run-loop.js";
import type { ResumeOptions, RunOptions } from "./run-options.js";
import { emptyUsage, type RunResult } from "./run-result.js";
import type { AgentInput } from "./start-conversation.js";
import type { OutputOf, OutputSchema } from "./structured-output.js";
import { type TracedRun, traceRun } from "./tracing/trace-run.js";

export type { ResumeOptions, RunOptions } from "./run-options.js";

const ignoreEvents: AgentEventSink = () => {};

/**
 * A model with tools, run in a loop until it answers without asking for one.
 * Options are checked here, once: a bad option is a ConfigurationError naming
 * each problem, and the tools' definitions are computed once for every run.
 *
 * Every run has an id, and goes through the agent's run store (its own,
 * in memory, when it was given none): a run waiting for a human's approval
 * ends `suspended` with a saved state and goes on with `resume()`, possibly
 * in another process with a new `Agent` built with the same tools and
 * approver.
 *
 * @example
 * const agent = new Agent({
 *   model: reasoner,
 *   tools: [listCallbacks, deleteCallbacks],
 *   instructions: "You keep the order service's callbacks tidy.",
 *   approver,
 *   runStore: new FileRunStore(),
 * });
 * const result = await agent.run("Remove the callbacks pointing at staging", {
 *   suspendOnApproval: true,
 * });
 * if (result.status === "suspended") console.log(`resume ${result.runId} once answered`);
 * // later, maybe in another process, with an agent built the same way:
 * const resumed = await agent.resume(runId);
 */
export class Agent<
  Schema extends OutputSchema | undefined = undefined,
  ToolName extends string = string,
> {
  readonly #settings: AgentSettings;
  readonly #ungatedTools: readonly string[];

  constructor(options: AgentOptions<Schema, ToolName>) {
    this.#settings = resolveAgentOptions(options);
    // What runs the agent's work (a RunWorker) removes the same secrets from what it keeps.
    attachSecrets(this, this.#settings.secrets);
    const { tools, approvalPolicy, logger } = this.#settings;
    this.#ungatedTools = ungatedToolNames(tools.values(), approvalPolicy);
    warnApprovalsTurnedOff(tools.values(), approvalPolicy, logger);
  }

  /**
   * The names of the tools whose calls may change something and run without
   * asking anyone: not `readOnly`, and `needsApproval: false` or allowed by
   * an unconditional rule (of `approvalPolicy`, or a tool set's
   * `runWithoutApproval`) that no other rule overrides. Assert your policy
   * on it in your own tests.
   *
   * @example
   * expect(agent.ungatedTools).toEqual(["create_orders", "release_callback_holds"]);
   */
  get ungatedTools(): readonly string[] {
    return this.#ungatedTools;
  }

  /** The agent's logger (its `logger` option, secrets removed), for what serves the agent to log by. */
  get logger(): Logger {
    return this.#settings.logger;
  }

  /** The tools, by name. */
  get tools(): ReadonlyMap<string, AnyTool> {
    return this.#settings.tools;
  }

  /** The `tools` array sent on every model call; computed once, frozen. */
  get toolDefinitions(): readonly ModelToolDefinition[] {
    return this.#settings.toolDefinitions;
  }

  /**
   * Runs the loop with `model.complete()`. Resolves, never rejects, for how
   * the run ends: status `completed`, `max_steps`, `aborted`, `failed` or
   * `suspended`, with the partial conversation, steps, usage and `error`
   * when there is one (and `runId` and `state` for a durable run). Rejects
   * only with a ConfigurationError for bad input or options (such as a
   * `runId` already in the run store), or when the store cannot claim the run.
   */
  run(
    input: AgentInput,
    options?: RunOptions<undefined, ToolName>,
  ): Promise<RunResult<OutputOf<Schema>>>;
  /** With an `output` schema for this run: `result.output` is typed from it. */
  run<RunSchema extends OutputSchema>(
    input: AgentInput,
    options: RunOptions<RunSchema, ToolName> & { output: RunSchema },
  ): Promise<RunResult<OutputOf<RunSchema>>>;
  async run(
    input: AgentInput,
    options: RunOptions<OutputSchema | undefined> = {},
  ): Promise<RunResult<unknown>> {
    const settings = resolveRunLoopOverrides(this.#settings, options);
    const prepared = prepareRun(settings, input, options as RunOptions);
    const claiming = claimNewRun(settings, prepared, options.runId !== undefined);
    if (claiming) await claiming;
    return await this.#loop(settings, prepared, "complete", ignoreEvents);
  }

  /**
   * Runs the same loop with `model.stream()`, yielding events as they
   * happen; `result` resolves to what `run()` would. Throws a
   * ConfigurationError at once for bad input or options; what `run()`
   * rejects with later (a `runId` already taken) ends the run `failed`
   * before it starts.
   */
  stream(
    input: AgentInput,
    options?: RunOptions<undefined, ToolName>,
  ): AgentStream<OutputOf<Schema>>;
  /** With an `output` schema for this run: `result.output` is typed from it. */
  stream<RunSchema extends OutputSchema>(
    input: AgentInput,
    options: RunOptions<RunSchema, ToolName> & { output: RunSchema },
  ): AgentStream<OutputOf<RunSchema>>;
  stream(
    input: AgentInput,
    options: RunOptions<OutputSchema | undefined> = {},
    // biome-ignore lint/suspicious/noExplicitAny: the overloads type the output; the loop does not.
  ): AgentStream<any> {
    const settings = resolveRunLoopOverrides(this.#settings, options);
    const prepared = prepareRun(settings, input, options as RunOptions);
    return new AgentStream(async (emit) => {
      try {
        const claiming = claimNewRun(settings, prepared, options.runId !== undefined);
        if (claiming) await claiming;
      } catch (error) {
        return endBeforeStart(settings, prepared.journal.messages, error as Error, emit);
      }
      return this.#loop(settings, prepared, "stream", emit);
    });
  }

  /**
   * Goes on with a saved run: a `RunState` (e.g. `result.state`), or a run
   * id to load from the `runStore`. First settles the calls of the step it
   * stopped in: reads each pending approval's answer with the approver's
   * `read()`, by the ticket the state kept (nothing is asked again), runs the approved calls,
   * tells the model about refused ones and about destructive calls whose
   * outcome is unknown, then continues the loop. When an answer is still
   * pending, it suspends again at once, sending nothing. Resume each state
   * once: go on from the new `result.state`, or by id.
   *
   * Rejects before anything runs with `RunNotFoundError`, `RunStateError`
   * (unreadable state), `RunNotResumableError` (the run ended, is marked
   * running or claimed by another process without `takeOver`, the state
   * given is not the store's revision, or its store no longer holds it) or `ConfigurationError` (no run store
   * for an id, no approver for a run that waits for an answer, bad options).
   * Otherwise resolves like `run()`, possibly `suspended` again.
   */
  resume(
    stateOrRunId: RunState | string,
    options?: ResumeOptions<undefined, ToolName>,
  ): Promise<RunResult<OutputOf<Schema>>>;
  /** With an `output` schema for the rest of the run: `result.output` is typed from it. */
  resume<RunSchema extends OutputSchema>(
    stateOrRunId: RunState | string,
    options: ResumeOptions<RunSchema, ToolName> & { output: RunSchema },
  ): Promise<RunResult<OutputOf<RunSchema>>>;
  async resume(
    stateOrRunId: RunState | string,
    options: ResumeOptions<OutputSchema | undefined> = {},
  ): Promise<RunResult<unknown>> {
    const settings = resolveRunLoopOverrides(this.#settings, options);
    const request = checkResumeRequest(settings, stateOrRunId, options as ResumeOptions);
    const prepared = await openResumedRun(settings, request);
    return this.#loop(settings, prepared, "complete", ignoreEvents);
  }

  /**
   * Whether a suspended run would only suspend again if resumed now: every
   * answer it waits for is still pending, as the approver's `peek`
   * reads it (one read per question; nothing is decided or saved).
   * `RunWorker` asks this before resuming a run, so a run nobody answered
   * yet costs a read, not a resume. `pending: false` whenever a resume
   * could do anything; the answers are then read by `resume()`, through
   * the approval gate. Rejects when the approver cannot reach its service.
   */
  peekPendingAnswers(
    state: RunState,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<ApprovalPeek> {
    return peekPendingAnswers(
      state,
      this.#settings.approver,
      options.signal ?? new AbortController().signal,
    );
  }

  /**
   * Ends a suspended (or abandoned running) run `failed` without resuming
   * it, under `claim` (from this agent's `runStore`): what `RunWorker` does
   * once the run's resume failed `maxAttempts` times. The stored state is
   * kept whole (its conversation, its calls and their approvals, the
   * approvals it spent), with status `failed` and `error` (its message
   * redacted), sealed with the agent's `stateKey` when it has one, in one
   * save fenced by the claim: a call that had started without a recorded
   * end is recorded as of unknown outcome, as a resume would, and named in
   * the error; it is never run again. Rejects with `RunConflictError`
   * when the claim no longer holds, `RunStateError` when the state's seal
   * does not match, `RunNotResumableError` when the run already ended,
   * `ConfigurationError` (nothing written) when `claim` is not a claim or
   * `error` has no `name` and `message`. The claim stays the caller's to release.
   */
  failRun(claim: RunClaim, error: { name: string; message: string }): Promise<RunState> {
    const { runStore, secrets, stateKey, tools } = this.#settings;
    return endRunFailed({
      store: runStore,
      claim,
      error,
      redact: (text) => secrets.redactText(text),
      stateKey,
      readOnlyTools: [...tools.values()].filter((tool) => tool.readOnly).map((tool) => tool.name),
    });
  }

  /**
   * `resume()` with `model.stream()`: events as they happen, `result` as
   * `resume()` resolves. Takes the state itself (load it with
   * `runStore.load(runId)`). Throws at once for bad options or a state that
   * cannot be resumed; what `resume()` finds later in the store (a claim
   * held elsewhere, another revision) ends the run `failed` before it starts.
   */
  resumeStream(
    state: RunState,
    options?: ResumeOptions<undefined, ToolName>,
  ): AgentStream<OutputOf<Schema>>;
  /** With an `output` schema for the rest of the run: `result.output` is typed from it. */
  resumeStream<RunSchema extends OutputSchema>(
    state: RunState,
    options: ResumeOptions<RunSchema, ToolName> & { output: RunSchema },
  ): AgentStream<OutputOf<RunSchema>>;
  resumeStream(
    state: RunState,
    options: ResumeOptions<OutputSchema | undefined> = {},
    // biome-ignore lint/suspicious/noExplicitAny: the overloads type the output; the loop does not.
  ): AgentStream<any> {
    const settings = resolveRunLoopOverrides(this.#settings, options);
    const request = checkResumeRequest(settings, state, options as ResumeOptions);
    return new AgentStream(async (emit) => {
      let prepared: PreparedRun;
      try {
        prepared = await openResumedRun(settings, request);
      } catch (error) {
        return endBeforeStart(settings, request.given?.messages ?? [], error as Error, emit);
      }
      return this.#loop(settings, prepared, "stream", emit);
    });
  }

  async #loop(
    settings: AgentSettings,
    prepared: PreparedRun,
    mode: ModelCallMode,
    emit: AgentEventSink,
  ): Promise<RunResult<unknown>> {
    const { claim, ...given } = prepared;
    const stopRenewing = keepClaimRenewed(claim);
    // The run goes on only while its claim (this agent's, or the caller's) holds.
    const held = given.journal.claim;
    const watch = held ? watchClaim(held, settings.logger) : undefined;
    given.journal.claimWatch = watch;
    const loop = watch
      ? { ...given, signal: AbortSignal.any([given.signal, watch.signal]) }
      : given;
    let status: RunResult<unknown>["status"] | undefined;
    try {
      if (!settings.tracing) {
        const result = await runLoop({ settings, mode, emit, ...loop });
        status = result.status;
        return result;
      }
      let traced: TracedRun;
      try {
        traced = await traceRun(settings.tracing, settings, loop.journal.runId);
      } catch (error) {
        return endBeforeStart(settings, loop.journal.messages, error as Error, emit);
      }
      const result = await runLoop({
        ...loop,
        settings: traced.settings,
        mode,
        emit: traced.observe(emit),
      });
      status = result.status;
      return result;
    } finally {
      watch?.stop();
      stopRenewing();
      if (claim) await claim.release().catch(() => {});
      // The agent's own memory keeps a run while it may go on (suspended).
      // Of one that ended it keeps the approvals spent, and the calls it
      // started only when it went on from a state: a copy of that state
      // could be resumed again, and must find them started. A run that never
      // suspended gave out no state to resume.
      const own = settings.ownRunStore;
      if (own && status !== "suspended" && loop.journal.stored) {
        if (loop.journal.resumed) own.forget(loop.journal.runId);
        else await own.delete(loop.journal.runId).catch(() => {});
      }
    }
  }
}

/** The result of a stream that could not start; `finish` is still its last event. */
function endBeforeStart(
  settings: AgentSettings,
  messages: readonly ModelMessage[],
  error: Error,
  emit: AgentEventSink,
): RunResult<unknown> {
  const result: RunResult<unknown> = {
    status: "failed",
    output: settings.output ? undefined : "",
    messages: [...messages],
    steps: [],
    usage: emptyUsage(),
    error,
  };
  emit({ type: "finish", result });
  return result;
}
