import { ConfigurationError } from "../errors/configuration-error.js";
import type { AgentEvent } from "./agent-events.js";
import type { RunResult } from "./run-result.js";

/**
 * What `agent.stream()` returns: iterate it for the run's events as they
 * happen, and await `result` for the same `RunResult` `run()` gives. The run
 * goes on whether or not anyone iterates; events are kept until read. Leaving
 * the loop early stops the events, not the run: abort with the signal for that.
 *
 * @example
 * const stream = agent.stream("Clean up the callbacks", { signal });
 * for await (const event of stream) {
 *   if (event.type === "text-delta") process.stdout.write(event.delta);
 * }
 * const result = await stream.result;
 */
export class AgentStream<Output = string> implements AsyncIterable<AgentEvent<Output>> {
  /** Resolves when the run ends, however it ends; never rejects. */
  readonly result: Promise<RunResult<Output>>;
  readonly #buffer: AgentEvent<Output>[] = [];
  #closed = false;
  #detached = false;
  #iterated = false;
  #waiting: ((result: IteratorResult<AgentEvent<Output>>) => void) | undefined;

  /** @internal Built by `Agent.stream()`, which hands the loop `push` as its event sink. */
  constructor(start: (push: (event: AgentEvent<unknown>) => void) => Promise<RunResult<unknown>>) {
    // The loop is untyped in its output; the agent's schema types it.
    this.result = start((event) => this.#push(event as AgentEvent<Output>)).finally(() =>
      this.#close(),
    ) as Promise<RunResult<Output>>;
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent<Output>> {
    if (this.#iterated) {
      throw new ConfigurationError(
        "An agent stream can be iterated once; keep the events you need as they come.",
      );
    }
    this.#iterated = true;
    return {
      next: () => this.#next(),
      return: async () => {
        this.#detached = true;
        this.#buffer.length = 0;
        return { done: true, value: undefined };
      },
    };
  }

  #push(event: AgentEvent<Output>): void {
    if (this.#closed || this.#detached) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting({ done: false, value: event });
    } else {
      this.#buffer.push(event);
    }
  }

  #close(): void {
    this.#closed = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ done: true, value: undefined });
  }

  #next(): Promise<IteratorResult<AgentEvent<Output>>> {
    const event = this.#buffer.shift();
    if (event) return Promise.resolve({ done: false, value: event });
    if (this.#closed || this.#detached) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }
}
