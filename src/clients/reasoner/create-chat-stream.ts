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
    return new ChatEventIterator(
      this.#start((completion) => this.#resolve(completion)),
      (completion) => this.#resolve(completion),
      (error) => this.#reject(error),
    );
  }

  finalCompletion(): Promise<ChatCompletion> {
    if (!this.#started) {
      this.#started = true;
      void this.#drain();
    }
    return this.#final;
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

/**
 * The events of a source's batches one by one, settling the answer when the
 * source ends or fails, or when the caller stops early. Hands out an event
 * of a batch already read without another turn through a generator: a
 * stream's events come in a few batches, and most of them are handed out
 * from memory.
 */
class ChatEventIterator implements AsyncIterator<ChatStreamEvent> {
  readonly #source: AsyncGenerator<ChatStreamEvent[], ChatCompletion, undefined>;
  readonly #resolve: (completion: ChatCompletion) => void;
  readonly #reject: (error: unknown) => void;
  #batch: readonly ChatStreamEvent[] = [];
  #position = 0;
  /** The source ended, failed or was closed: nothing more to hand out. */
  #finished = false;
  /** The read of the next batch under way, which a next() called meanwhile waits for. */
  #reading: Promise<IteratorResult<ChatStreamEvent, undefined>> | undefined;

  constructor(
    source: AsyncGenerator<ChatStreamEvent[], ChatCompletion, undefined>,
    resolve: (completion: ChatCompletion) => void,
    reject: (error: unknown) => void,
  ) {
    this.#source = source;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  next(): Promise<IteratorResult<ChatStreamEvent, undefined>> {
    if (this.#reading) return this.#reading.then(() => this.next());
    if (this.#position < this.#batch.length) {
      return Promise.resolve({ done: false, value: this.#batch[this.#position++]! });
    }
    if (this.#finished) return Promise.resolve({ done: true, value: undefined });
    const reading = this.#read();
    this.#reading = reading;
    const clear = () => {
      this.#reading = undefined;
    };
    reading.then(clear, clear);
    return reading;
  }

  async return(): Promise<IteratorResult<ChatStreamEvent, undefined>> {
    if (this.#reading) await this.#reading.catch(() => {});
    this.#batch = [];
    if (!this.#finished) {
      this.#finished = true;
      // No-op when the source already settled the answer before its last events.
      this.#reject(closedEarly());
      await this.#source.return(undefined as never);
    }
    return { done: true, value: undefined };
  }

  async #read(): Promise<IteratorResult<ChatStreamEvent, undefined>> {
    for (;;) {
      let step: IteratorResult<ChatStreamEvent[], ChatCompletion>;
      try {
        step = await this.#source.next();
      } catch (error) {
        this.#finished = true;
        this.#reject(error);
        throw error;
      }
      if (step.done) {
        this.#finished = true;
        this.#resolve(step.value);
        return { done: true, value: undefined };
      }
      if (step.value.length > 0) {
        this.#batch = step.value;
        this.#position = 1;
        return { done: false, value: step.value[0]! };
      }
    }
  }
}

function closedEarly(): AbortedError {
  return new AbortedError(
    "The chat stream was closed before its end: the caller stopped reading it",
  );
}
