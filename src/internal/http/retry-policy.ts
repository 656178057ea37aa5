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

/**
 * Exponential backoff with jitter: a random wait between half and all of
 * min(maxDelayMs, initialDelayMs * 2^(retryNumber - 1)), so simultaneous
 * clients spread out without ever retrying at once.
 */
export function backoffDelayMs(
  retryNumber: number,
  initialDelayMs: number,
  maxDelayMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(ceiling * (0.5 + random() * 0.5));
}

/** What spaces the retries of one client. */
export interface RetrySchedule {
  /** Re-sends after the first attempt. */
  maxRetries: number;
  initialRetryDelayMs: number;
  maxRetryDelayMs: number;
}

/**
 * The wait before retry `retryNumber` (1 for the first re-send) after
 * `error`: what the service asked for in `Retry-After-Ms` / `Retry-After`
 * when the error carries an answer's headers, else the backoff.
 */
export function retryDelayMs(error: unknown, retryNumber: number, schedule: RetrySchedule): number {
  const headers = (error as { headers?: unknown } | undefined)?.headers;
  if (headers instanceof Headers) {
    const requested = readRetryAfterMs(headers);
    if (requested !== undefined) return requested;
  }
  return backoffDelayMs(retryNumber, schedule.initialRetryDelayMs, schedule.maxRetryDelayMs);
}
