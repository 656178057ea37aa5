import { onAbort } from "./on-abort.js";

interface Waiter {
  resolve(): void;
  /** Stops watching the waiter's signal, once it has its slot. */
  stopWatching: (() => void) | undefined;
}

/**
 * At most `limit` requests of one client in flight; the rest wait their
 * turn in order. Bounding how many answers can arrive at once bounds the
 * work one turn of the event loop does on them, so a burst of answers
 * cannot stall the process.
 */
export class RequestSlots {
  #free: number;
  readonly #waiting: Waiter[] = [];

  constructor(limit: number) {
    this.#free = limit;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Takes a slot: `undefined` when one was free at once (no promise made),
   * else a promise that resolves when one is handed over, or rejects with
   * `abortedError()` if `signal` fires first.
   */
  acquire(signal: AbortSignal | undefined, abortedError: () => Error): Promise<void> | undefined {
    if (this.#free > 0) {
      this.#free--;
      return undefined;
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, stopWatching: undefined };
      waiter.stopWatching = signal
        ? onAbort(signal, () => {
            const index = this.#waiting.indexOf(waiter);
            if (index >= 0) this.#waiting.splice(index, 1);
            reject(abortedError());
          })
        : undefined;
      this.#waiting.push(waiter);
    });
  }

  /** Gives a slot back, to the longest-waiting request if there is one. */
  release(): void {
    const next = this.#waiting.shift();
    if (!next) {
      this.#free++;
      return;
    }
    next.stopWatching?.();
    next.resolve();
  }
}
