/** Per-call options every client method accepts as its last argument. */
export interface RequestOptions {
  /** Aborts the call (and its retries); the call then throws `AbortedError`. */
  signal?: AbortSignal;
  /** Per-attempt timeout in milliseconds, overriding the client's `timeoutMs`. */
  timeoutMs?: number;
}
