import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../../errors/api-error.js";
import { AbortedError, ConnectionError, TimeoutError } from "../../errors/transport-errors.js";
import { isRetryableStatus, readRetryAfterMs } from "../../internal/http/retry-policy.js";
import type { PollSchedule } from "./wait-options.js";

/** How a poll loop ended; `last` is the most recent value read, if any. */
export type PollResult<T> =
  | { kind: "done"; value: T }
  | { kind: "timeout"; last?: T }
  | { kind: "error"; error: Error; last?: T };

/** What `pollUntil` needs. */
export interface PollUntilOptions<T> {
  /** One read; it must honour `signal`, which fires at the caller's abort or the deadline. */
  read(signal: AbortSignal): Promise<T>;
  isDone(value: T): boolean;
  schedule: PollSchedule;
  signal?: AbortSignal | undefined;
  /** Names the wait in an `AbortedError`, e.g. `waitForInteraction(abc)`. */
  label: string;
  /** Told about each transient failure that the loop rides out. */
  onTransientError?(error: Error, consecutiveErrors: number): void;
}

/**
 * Reads until `isDone`, pausing with growing intervals (never past the
 * deadline, and at least as long as a Retry-After the service sent). Transient
 * failures are retried up to `maxConsecutiveErrors` polls in a row; at the
 * deadline the result is `error` if the last poll failed, else `timeout`.
 * Throws only `AbortedError`, when the caller's signal fires.
 */
export async function pollUntil<T>(options: PollUntilOptions<T>): Promise<PollResult<T>> {
  const { schedule, signal: callerSignal, label } = options;
  const aborted = (cause?: unknown): AbortedError =>
    cause instanceof AbortedError
      ? cause
      : new AbortedError(`${label} was aborted by the caller`, { cause: callerSignal?.reason });
  if (callerSignal?.aborted) throw aborted();

  const deadline = performance.now() + schedule.timeoutMs;
  const deadlineController = new AbortController();
  const timer = setTimeout(() => deadlineController.abort(), schedule.timeoutMs);
  const signal = callerSignal
    ? AbortSignal.any([callerSignal, deadlineController.signal])
    : deadlineController.signal;

  let last: T | undefined;
  let lastError: Error | undefined;
  let consecutiveErrors = 0;
  let interval = schedule.pollIntervalMs;
  try {
    for (;;) {
      let requestedWaitMs = 0;
      try {
        const value = await options.read(signal);
        last = value;
        lastError = undefined;
        consecutiveErrors = 0;
        if (options.isDone(value)) return { kind: "done", value };
      } catch (caught) {
        if (callerSignal?.aborted) throw aborted(caught);
        if (deadlineController.signal.aborted) break;
        const error = caught instanceof Error ? caught : new Error(String(caught));
        if (!isTransient(error)) return { kind: "error", error, ...lastValue(last) };
        consecutiveErrors += 1;
        lastError = error;
        if (consecutiveErrors >= schedule.maxConsecutiveErrors) {
          return { kind: "error", error, ...lastValue(last) };
        }
        options.onTransientError?.(error, consecutiveErrors);
        requestedWaitMs = retryAfterMs(error) ?? 0;
      }
      const remaining = deadline - performance.now();
      if (remaining <= 0) break;
      try {
        await sleep(Math.min(Math.max(interval, requestedWaitMs), remaining), undefined, {
          signal,
        });
      } catch {
        if (callerSignal?.aborted) throw aborted();
        break;
      }
      if (deadlineController.signal.aborted || performance.now() >= deadline) break;
      interval = Math.min(interval * schedule.backoffFactor, schedule.maxPollIntervalMs);
    }
    return lastError
      ? { kind: "error", error: lastError, ...lastValue(last) }
      : { kind: "timeout", ...lastValue(last) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Failures worth another poll: the service or the network hiccuped. A 4xx
 * other than 408/409/429, or an unreadable answer, will not fix itself.
 */
export function isTransient(error: Error): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  if (error instanceof ApiError) return isRetryableStatus(error.status, true);
  return false;
}

function retryAfterMs(error: Error): number | undefined {
  return error instanceof ApiError ? readRetryAfterMs(error.headers) : undefined;
}

function lastValue<T>(last: T | undefined): { last?: T } {
  return last === undefined ? {} : { last };
}
