/**
 * Notices that a run may have become due, and the waits of idle workers on
 * them: the part of `RunQueue.waitForDue` the stores share. A notice that
 * comes while nobody waits is kept (one), so a worker that looks for due
 * runs and then waits does not sleep through a run made due in between.
 */
export class DueNotices {
  readonly #waiters = new Set<() => void>();
  #kept = false;

  /** Wakes every waiter now, or the next one to wait when none does. */
  notify(): void {
    if (this.#waiters.size === 0) {
      this.#kept = true;
      return;
    }
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves on a notice, after `timeoutMs`, or when `signal` fires; clears what it opened. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<"notified" | "timeout" | "aborted"> {
    if (signal?.aborted) return Promise.resolve("aborted");
    if (this.#kept) {
      this.#kept = false;
      return Promise.resolve("notified");
    }
    return new Promise((resolve) => {
      const finish = (outcome: "notified" | "timeout" | "aborted") => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#waiters.delete(onNotice);
        resolve(outcome);
      };
      const onNotice = () => finish("notified");
      const onAbort = () => finish("aborted");
      const timer = setTimeout(finish, timeoutMs, "timeout");
      this.#waiters.add(onNotice);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
