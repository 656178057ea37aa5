import { setTimeout as sleep } from "node:timers/promises";
import { onAbort } from "./on-abort.js";
import { type RetrySchedule, readRetryAfterMs } from "./retry-policy.js";

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
 * `schedule.maxRetries` re-sends are spent. p-retry decides and spaces the
 * retries (exponential backoff with jitter between half and all of
 * `initialRetryDelayMs * 2^n`, at most `maxRetryDelayMs`); a wait the
 * service asked for (`Retry-After-Ms` / `Retry-After`, capped at 60 s) is
 * the floor of the wait: p-retry 8 tells `onFailedAttempt` the delay it is
 * about to wait, and the remainder is waited there. Every attempt counts,
 * so a service answering 429 forever is tried `maxRetries + 1` times.
 *
 * The first attempt runs directly: p-retry is loaded, and set up, only
 * once it fails for a reason worth another try, and is handed that failure
 * as its own first attempt's.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  control: RetryControl,
): Promise<T> {
  try {
    return await attempt(1);
  } catch (error) {
    return retryAfterFirstFailure(error, attempt, control);
  }
}

/**
 * The part of {@link withRetries} after the first attempt failed with
 * `firstFailure`: for a caller that makes its first attempt itself, and
 * builds its {@link RetryControl} only when that attempt fails.
 */
export async function retryAfterFirstFailure<T>(
  firstFailure: unknown,
  attempt: (attemptNumber: number) => Promise<T>,
  control: RetryControl,
): Promise<T> {
  const { schedule, signal: callerSignal } = control;
  if (schedule.maxRetries === 0 || !control.shouldRetry(firstFailure)) throw firstFailure;
  if (callerSignal?.aborted) throw control.abortedError();
  const { default: pRetry } = await import("p-retry");
  // p-retry listens on its signal during each wait; a signal of this call's
  // own keeps a signal shared by many requests at one listener.
  const follower = callerSignal ? new AbortController() : undefined;
  const stopFollowing =
    callerSignal && follower
      ? onAbort(callerSignal, () => follower.abort(callerSignal.reason))
      : undefined;
  try {
    return await pRetry(
      (attemptNumber) =>
        attemptNumber === 1 ? Promise.reject(firstFailure) : attempt(attemptNumber),
      {
        retries: schedule.maxRetries,
        factor: 2,
        minTimeout: schedule.initialRetryDelayMs / 2,
        maxTimeout: schedule.maxRetryDelayMs,
        randomize: true,
        ...(follower ? { signal: follower.signal } : {}),
        shouldRetry: ({ error }) => control.shouldRetry(error),
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft, retryDelay }) => {
          if (retriesLeft === 0 || !control.shouldRetry(error)) return;
          const requested = requestedWaitMs(error);
          const delayMs = Math.max(retryDelay, requested ?? 0);
          control.onRetry(error, attemptNumber, delayMs);
          const remainder = delayMs - retryDelay;
          if (remainder > 0) {
            await sleep(remainder, undefined, follower ? { signal: follower.signal } : undefined);
          }
        },
      },
    );
  } catch (error) {
    if (callerSignal?.aborted) throw control.abortedError();
    throw error;
  } finally {
    stopFollowing?.();
  }
}

/** The wait the service asked for, when the error carries an answer's headers. */
function requestedWaitMs(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown } | undefined)?.headers;
  return headers instanceof Headers ? readRetryAfterMs(headers) : undefined;
}
