import type { ChatMessage, ChatToolDefinition } from "../clients/reasoner/chat-types.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { AnyTool } from "../tools/tool.js";
import type { AgentEventSink } from "./agent-events.js";
import {
  type AgentOptions,
  type AgentSettings,
  positiveInteger,
  resolveAgentOptions,
} from "./agent-options.js";
import { AgentStream } from "./agent-stream.js";
import type { ModelCallMode } from "./call-model.js";
import { runLoop } from "./run-loop.js";
import type { RunResult } from "./run-result.js";
import { type AgentInput, startConversation } from "./start-conversation.js";

/** Options of one run. */
export interface RunOptions {
  /** Stops the run: the model request, running tools and a pending approval. */
  signal?: AbortSignal | undefined;
  /** Overrides the agent's `maxSteps` for this run. */
  maxSteps?: number | undefined;
}

const ignoreEvents: AgentEventSink = () => {};

/**
 * A model with tools, run in a loop until it answers without asking for one.
 * Options are checked here, once: a bad option is a ConfigurationError naming
 * each problem, and the tools' definitions are computed once for every run.
 *
 * @example
 * const agent = new Agent({
 *   model: reasoner,
 *   tools: [listCallbacks, deleteCallbacks],
 *   instructions: "You keep the order service's callbacks tidy.",
 *   approver,
 * });
 * const result = await agent.run("Remove the callbacks pointing at staging");
 * if (result.status !== "completed") console.error(result.status, result.error);
 */
export class Agent {
  readonly #settings: AgentSettings;

  constructor(options: AgentOptions) {
    this.#settings = resolveAgentOptions(options);
  }

  /** The tools, by name. */
  get tools(): ReadonlyMap<string, AnyTool> {
    return this.#settings.tools;
  }

  /** The `tools` array sent on every model call; computed once, frozen. */
  get toolDefinitions(): readonly ChatToolDefinition[] {
    return this.#settings.toolDefinitions;
  }

  /**
   * Runs the loop with `model.complete()`. Resolves, never rejects, for how
   * the run ends: status `completed`, `max_steps`, `aborted` or `failed`,
   * with the partial conversation, steps, usage and `error` when there is
   * one. Rejects only with a ConfigurationError for bad input or options.
   */
  async run(input: AgentInput, options: RunOptions = {}): Promise<RunResult> {
    return this.#loop(this.#prepare(input, options), options, "complete", ignoreEvents);
  }

  /**
   * Runs the same loop with `model.stream()`, yielding events as they
   * happen; `result` resolves to what `run()` would. Throws a
   * ConfigurationError at once for bad input or options.
   */
  stream(input: AgentInput, options: RunOptions = {}): AgentStream {
    const messages = this.#prepare(input, options);
    return new AgentStream((emit) => this.#loop(messages, options, "stream", emit));
  }

  #prepare(input: AgentInput, options: RunOptions): ChatMessage[] {
    const problems: string[] = [];
    positiveInteger(options.maxSteps, 1, "maxSteps", problems);
    const signal = options.signal as Partial<AbortSignal> | undefined;
    if (
      signal !== undefined &&
      (typeof signal?.aborted !== "boolean" || typeof signal.addEventListener !== "function")
    ) {
      problems.push("signal must be an AbortSignal.");
    }
    if (problems.length > 0) throw new ConfigurationError(problems);
    return startConversation(input, this.#settings.instructions);
  }

  #loop(
    messages: ChatMessage[],
    options: RunOptions,
    mode: ModelCallMode,
    emit: AgentEventSink,
  ): Promise<RunResult> {
    return runLoop({
      settings: this.#settings,
      messages,
      maxSteps: options.maxSteps ?? this.#settings.maxSteps,
      signal: options.signal ?? new AbortController().signal,
      mode,
      emit,
    });
  }
}
