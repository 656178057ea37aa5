import { SwitchyardError } from "../../errors/switchyard-error.js";

/**
 * Why a streamed answer failed after its headers arrived:
 * - `provider_error`: the provider sent an error inside the stream (an
 *   `event: error` event, or a data event with a top-level `error` object).
 * - `incomplete`: the body ended before every choice had a `finish_reason`.
 * - `malformed`: an event was not a readable `chat.completion.chunk`.
 */
export type StreamErrorKind = "provider_error" | "incomplete" | "malformed";

/** Everything known about a failed stream. */
export interface StreamErrorDetails {
  kind: StreamErrorKind;
  method: string;
  url: string;
  /** What went wrong, in words; the provider's message for `provider_error`. */
  detail: string;
  /** The provider's error code (`error.code`), when it sent one. */
  code?: string | number | undefined;
  /** The provider's error type (`error.type`), when it sent one. */
  type?: string | undefined;
  /** The provider's error object, or the unreadable data, secrets removed. */
  body?: unknown;
}

/**
 * A streamed chat answer that cannot be used: the provider reported an error
 * mid-stream (HTTP status still 200), the stream stopped early, or it carried
 * something that is not a chunk. `kind` tells which.
 *
 * @example
 * ```ts
 * try {
 *   await client.stream(request).finalCompletion();
 * } catch (error) {
 *   if (error instanceof StreamError && error.kind === "provider_error") console.log(error.code);
 * }
 * ```
 */
export class StreamError extends SwitchyardError {
  override readonly name: string = "StreamError";
  readonly kind: StreamErrorKind;
  readonly method: string;
  readonly url: string;
  /** The provider's message for `provider_error`, else a description of the fault. */
  readonly detail: string;
  readonly code: string | number | undefined;
  readonly type: string | undefined;
  readonly body: unknown;

  constructor(details: StreamErrorDetails, options?: { cause?: unknown }) {
    super(formatStreamErrorMessage(details), options);
    this.kind = details.kind;
    this.method = details.method;
    this.url = details.url;
    this.detail = details.detail;
    this.code = details.code;
    this.type = details.type;
    this.body = details.body;
  }
}

const kindLabels: Record<StreamErrorKind, string> = {
  provider_error: "the provider reported an error mid-stream",
  incomplete: "the stream ended early",
  malformed: "the stream carried an unreadable event",
};

function formatStreamErrorMessage(details: StreamErrorDetails): string {
  const code = details.code === undefined ? "" : ` (code ${String(details.code)})`;
  return `${details.method} ${details.url}: ${kindLabels[details.kind]}${code}: ${details.detail}`;
}
