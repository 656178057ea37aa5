import { SwitchyardError } from "./switchyard-error.js";

/** Where a request went; carried by every transport error. */
export interface RequestTarget {
  method: string;
  url: string;
}

/** The request never got an HTTP answer: DNS, refused or dropped connection. */
export class ConnectionError extends SwitchyardError {
  override readonly name: string = "ConnectionError";
  readonly method: string;
  readonly url: string;

  constructor(target: RequestTarget, options?: { cause?: unknown; message?: string }) {
    super(
      options?.message ??
        `${target.method} ${target.url} failed: could not connect (${describeCause(options?.cause)})`,
      options,
    );
    this.method = target.method;
    this.url = target.url;
  }
}

/** The request or the stream took longer than its timeout. */
export class TimeoutError extends SwitchyardError {
  override readonly name: string = "TimeoutError";
  readonly method: string;
  readonly url: string;
  readonly timeoutMs: number;

  constructor(
    target: RequestTarget,
    timeoutMs: number,
    options?: { cause?: unknown; message?: string },
  ) {
    super(
      options?.message ??
        `${target.method} ${target.url} timed out after ${timeoutMs} ms; raise the timeout option if the service is slow`,
      options,
    );
    this.method = target.method;
    this.url = target.url;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The answer's body was larger than the client's `maxResponseBytes`: it was
 * cut off while being read (or refused on its `Content-Length`), never held
 * whole. Not retried: the same request would get the same answer.
 */
export class ResponseTooLargeError extends SwitchyardError {
  override readonly name: string = "ResponseTooLargeError";
  readonly method: string;
  readonly url: string;
  /** The limit that was passed, in bytes. */
  readonly limitBytes: number;

  constructor(target: RequestTarget, limitBytes: number, options?: { cause?: unknown }) {
    super(
      `${target.method} ${target.url} answered with a body larger than ${limitBytes} bytes; it was cut off. Raise maxResponseBytes if such answers are expected`,
      options,
    );
    this.method = target.method;
    this.url = target.url;
    this.limitBytes = limitBytes;
  }
}

/** The caller's AbortSignal fired. */
export class AbortedError extends SwitchyardError {
  override readonly name: string = "AbortedError";

  constructor(message = "The operation was aborted by the caller", options?: { cause?: unknown }) {
    super(message, options);
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const inner = (cause as { cause?: unknown }).cause;
    if (typeof code === "string") return code;
    if (inner instanceof Error) return describeCause(inner);
    return cause.message;
  }
  return String(cause);
}
