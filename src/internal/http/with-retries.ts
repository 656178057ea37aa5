import { setTimeout as sleep } from "node:timers/promises";
import { type RetrySchedule, retryDelayMs } from "./retry-policy.js";

/** How {@link withRetries} decides, waits and reports. */
export interface RetryControl {
  schedule: RetrySchedule;
  /** Whether this failure may be tried again. */
  shouldRetry(error: unknown): boolean;
  /** Told before each wait (to log it). */
  onRetry(error: unknown, retryNumber: number, delayMs: number): void;
  /** Cuts a wait short. */
  signal: AbortSignal | undefined;
  /** The error thrown when `signal` fires during a wait. */
  abortedError(): Error;
}

/**
 * Runs `attempt` until it succeeds, a failure may not be retried, or
 * `schedule.maxRetries` re-sends are spent; waits between attempts as the
 * service asked (`Retry-After`) or with backoff.
 *
 * This loop, not p-retry: p-retry 7 computes every wait from its own
 * formula (`minTimeout * factor ** n`). A wait the service asks for can
 * only be added on top of it (in `onFailedAttempt` or `shouldRetry`), or
 * replace it by `shouldConsumeRetry: false`, which also stops counting the
 * attempt, so a service answering 429 with `Retry-After` forever would be
 * retried forever.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  control: RetryControl,
): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (attemptNumber > control.schedule.maxRetries || !control.shouldRetry(error)) throw error;
      const delayMs = retryDelayMs(error, attemptNumber, control.schedule);
      control.onRetry(error, attemptNumber, delayMs);
      if (control.signal?.aborted) throw control.abortedError();
      try {
        await sleep(delayMs, undefined, control.signal ? { signal: control.signal } : undefined);
      } catch {
        throw control.abortedError();
      }
    }
  }
}
