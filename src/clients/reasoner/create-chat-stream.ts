import { SwitchyardError } from "../../errors/switchyard-error.js";
import { AbortedError } from "../../errors/transport-errors.js";
import type { ChatCompletion, ChatStream, ChatStreamEvent } from "./chat-types.js";

/**
 * What a {@link createChatStream} reads: batches of events (never empty),
 * then the assembled answer as return value. A source that knows the answer
 * before its last events (the `finish` events) hands it to `settle` first,
 * so a caller who stops at a `finish` event still gets it from
 * `finalCompletion()`.
 */
export type ChatEventSource = (
  settle: (completion: ChatCompletion) => void,
) => AsyncGenerator<ChatStreamEvent[], ChatCompletion, undefined>;

/**
 * A {@link ChatStream} over an event source that returns the assembled answer
 * when done. Nothing is requested until the stream is iterated or
 * `finalCompletion()` is called. Iterate it once; `finalCompletion()` alone
 * consumes it, and after (or during) iteration resolves to the assembled
 * answer. Leaving the loop early cancels the request, and `finalCompletion()`
 * then rejects with an AbortedError.
 */
export function createChatStream(start: ChatEventSource): ChatStream {
  return new GeneratorChatStream(start);
}

class GeneratorChatStream implements ChatStream {
  readonly #start: ChatEventSource;
  readonly #final: Promise<ChatCompletion>;
  #resolve!: (completion: ChatCompletion) => void;
  #reject!: (error: unknown) => void;
  #started = false;

  constructor(start: ChatEventSource) {
    this.#start = start;
    this.#final = new Promise<ChatCompletion>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Callers that only iterate get the error from the loop; this keeps the
    // unawaited final promise from being reported as unhandled.
    this.#final.catch(() => {});
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatStreamEvent> {
    if (this.#started) {
      throw new SwitchyardError(
        "This chat stream is already being read: iterate it once, and use finalCompletion() for the assembled answer",
      );
    }
    this.#started = true;
    const events = this.#iterate();
    return {
      next: () => events.next(),
      return: async () => {
        await events.return();
        // Settles the answer even when the loop ended before its first step,
        // where the generator's own cleanup never ran; a no-op otherwise.
        this.#reject(closedEarly());
        return { done: true, value: undefined };
      },
    };
  }

  finalCompletion(): Promise<ChatCompletion> {
    if (!this.#started) {
      this.#started = true;
      void this.#drain();
    }
    return this.#final;
  }

  async *#iterate(): AsyncGenerator<ChatStreamEvent, void, undefined> {
    const source = this.#start((completion) => this.#resolve(completion));
    let finished = false;
    try {
      for (;;) {
        const step = await source.next();
        if (step.done) {
          finished = true;
          this.#resolve(step.value);
          return;
        }
        yield* step.value;
      }
    } catch (error) {
      finished = true;
      this.#reject(error);
      throw error;
    } finally {
      if (!finished) {
        // No-op when the source already settled the answer before its last events.
        this.#reject(closedEarly());
        await source.return(undefined as never);
      }
    }
  }

  /** Reads the source to its end for the answer alone; its event batches are not unpacked. */
  async #drain(): Promise<void> {
    const source = this.#start((completion) => this.#resolve(completion));
    try {
      for (;;) {
        const step = await source.next();
        if (step.done) {
          this.#resolve(step.value);
          return;
        }
      }
    } catch (error) {
      this.#reject(error);
    }
  }
}

function closedEarly(): AbortedError {
  return new AbortedError(
    "The chat stream was closed before its end: the caller stopped reading it",
  );
}
