import type { Logger } from "../../internal/logger.js";
import type { CompressionOptions, ProviderRouting } from "./chat-types.js";
import type { ExtraBodyMode } from "./validate-chat-request.js";

/** Options of {@link ReasonerClient}. */
export interface ReasonerClientOptions {
  /**
   * The reasoning service's address; requests are POSTed to it exactly, no
   * path appended. `https:` only, except loopback hosts.
   * @example "https://reasoner.example.com/v1/chat/completions"
   */
  url: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never logged or shown in errors. */
  apiKey: string;
  /** Model used when a request names none; omitted means the organisation's default. */
  model?: string | undefined;
  /** Provider routing merged under each request's `extra_body.provider`. */
  provider?: ProviderRouting | undefined;
  /** Token compression merged under each request's `extra_body.compression`. */
  compression?: CompressionOptions | undefined;
  /**
   * `extra_body`: send `extra_body` as a literal object, as the service
   * documents it. `merge`: put its keys (`provider`, `compression`, ...) at
   * the top level, for OpenRouter-style endpoints.
   * @default "extra_body"
   */
  extraBodyMode?: ExtraBodyMode | undefined;
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch | undefined;
  logger?: Logger | undefined;
  /** Per-attempt wait for the answer (for a stream: for its headers), in ms. @default 60000 */
  timeoutMs?: number | undefined;
  /** Re-sends after the first attempt. @default 2 */
  maxRetries?: number | undefined;
  /** First backoff delay in ms; doubles per retry, with jitter. @default 500 */
  initialRetryDelayMs?: number | undefined;
  /** Ceiling of one backoff delay in ms. @default 8000 */
  maxRetryDelayMs?: number | undefined;
  /** Longest silence between two chunks of a stream before a TimeoutError, in ms. @default 60000 */
  streamIdleTimeoutMs?: number | undefined;
  /**
   * Requests in flight at once (a stream counts until its headers arrive);
   * more wait their turn. With hundreds of runs in one process and a fast
   * service, a limit keeps a burst of answers from stalling the event loop.
   * Unlimited when omitted.
   */
  maxConcurrentRequests?: number | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
}
