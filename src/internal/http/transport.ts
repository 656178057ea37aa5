/**
 * What the HTTP core asks of a transport: send one request, hand back the
 * answer's status and headers, and read its body no further than
 * `maxResponseBytes`. Two implementations: the pooled `node:http` transport
 * (the default) and one over a caller's `fetch`.
 */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/** One request as the HTTP core has prepared it. */
export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /**
   * Ends the request, or the reading of its body, when it fires. Made when
   * first read: a transport that can end its request itself registers
   * {@link TransportRequest.setAbortHandler} instead, and no signal is made.
   */
  readonly signal: AbortSignal;
  /**
   * Calls `handler` with the reason once the attempt is aborted (its
   * timeout, or the caller's signal), at once if it was already; `undefined`
   * stops it. One handler at a time. What the `node:http` transport uses in
   * place of a listener on {@link TransportRequest.signal}: an
   * `AbortController` and its listener are the dearest objects of a
   * request.
   */
  setAbortHandler(handler: ((reason: unknown) => void) | undefined): void;
  /** Most bytes of body read before it is cut off with {@link ResponseTooLargeSignal}. */
  maxResponseBytes: number;
  /**
   * Called once the request has a connection (at once for `fetch`): time
   * spent waiting in the pool's queue is not the service's, so the
   * per-attempt timeout starts here.
   */
  onConnection(): void;
}

/** An answer whose headers arrived; the body is read through it once. */
export interface TransportResponse {
  readonly status: number;
  readonly headers: Headers;
  /** One header's value (lower-case name), without building `headers`. */
  header(name: string): string | undefined;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** The body as it arrives, chunk by chunk. */
  reader(): BodyReader;
  /** Stops reading and lets the connection go. */
  cancel(): void;
}

/** One read of a {@link BodyReader}: the next bytes, or the end. */
export type BodyRead = { done: true; value?: undefined } | { done: false; value: Uint8Array };

/** Pull reader over a response body, shaped like a web stream's reader. */
export interface BodyReader {
  read(): Promise<BodyRead>;
  cancel(): void;
}

/**
 * Thrown by a transport when a body passes `maxResponseBytes` (or declares
 * more in `Content-Length`); the HTTP core turns it into a
 * `ResponseTooLargeError` naming the request.
 */
export class ResponseTooLargeSignal extends Error {
  override readonly name = "ResponseTooLargeSignal";
  constructor(readonly limitBytes: number) {
    super(`the answer is larger than ${limitBytes} bytes`);
  }
}

/**
 * Thrown by the fetch transport when the caller's `fetch` followed a
 * redirect despite `redirect: "manual"` (`location` is where it ended), or
 * hid the redirect's target (an opaque redirect, `location` undefined).
 */
export class RedirectSignal extends Error {
  override readonly name = "RedirectSignal";
  constructor(readonly location: string | undefined) {
    super(location === undefined ? "the answer is a redirect" : `redirected to ${location}`);
  }
}

/** The error for a `Content-Length` above the limit, or `undefined`. */
export function checkDeclaredLength(
  contentLength: string | null | undefined,
  limitBytes: number,
): ResponseTooLargeSignal | undefined {
  if (contentLength === null || contentLength === undefined) return undefined;
  const declared = Number(contentLength);
  return declared > limitBytes ? new ResponseTooLargeSignal(limitBytes) : undefined;
}
