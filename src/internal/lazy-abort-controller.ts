/**
 * An `AbortController` whose signal is made when first read. A tool call
 * needs a signal that fires on its timeout or the run's abort, but most
 * tools never read it, and an `AbortController` is one of the dearest
 * objects a call makes. Read after `abort()`, the signal is made already
 * aborted, with the same reason, as the eager one would be by then.
 */
export class LazyAbortController {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  /** The signal, made on first read. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** True once `abort()` was called. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The reason of the first `abort()`. */
  get reason(): unknown {
    return this.#reason;
  }

  /** Fires the signal (if made) with `reason`; later calls do nothing, as with `AbortController`. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}
