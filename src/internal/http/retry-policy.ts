/** Upper bound on any server-requested wait. */
export const maxRetryAfterMs = 60_000;

const retryableStatuses = new Set([408, 409, 429]);
/** Statuses that say the request was not processed at all, so even a request with side effects may go again. */
const notProcessedStatuses = new Set([408, 429]);

/**
 * Whether a failed attempt may be sent again. `safe` requests (reads, or
 * writes carrying an idempotency key) retry on 408, 409, 429, 5xx and
 * connection failures; others only when the service certainly did not act.
 */
export function isRetryableStatus(status: number, safe: boolean): boolean {
  if (safe) return retryableStatuses.has(status) || status >= 500;
  return notProcessedStatuses.has(status);
}

/**
 * The wait the service asked for, from `Retry-After-Ms` or `Retry-After`
 * (seconds or an HTTP date), capped at 60 s; undefined when absent or unreadable.
 */
export function readRetryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && milliseconds.trim() !== "") {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.min(value, maxRetryAfterMs);
  }
  const retryAfter = headers.get("retry-after");
  if (retryAfter === null || retryAfter.trim() === "") return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds))
    return seconds >= 0 ? Math.min(seconds * 1000, maxRetryAfterMs) : undefined;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), maxRetryAfterMs);
}

/** What spaces the retries of one client. */
export interface RetrySchedule {
  /** Re-sends after the first attempt. */
  maxRetries: number;
  initialRetryDelayMs: number;
  maxRetryDelayMs: number;
}
