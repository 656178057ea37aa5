import type { TransportOptions } from "../../internal/http/transport-options.js";
import type { CompressionOptions, ProviderRouting } from "./chat-types.js";
import type { ModelName } from "./known-model.js";
import type { ExtraBodyMode } from "./validate-chat-request.js";

/** Options of {@link ReasonerClient}: the service, request defaults, and the shared transport options. */
export interface ReasonerClientOptions extends TransportOptions {
  /**
   * The reasoning service's address; requests are POSTed to it exactly, no
   * path appended. `https:` only, except loopback hosts.
   * @example "https://reasoner.example.com/v1/chat/completions"
   */
  url: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never logged or shown in errors. */
  apiKey: string;
  /**
   * Model used when a request names none; omitted means the organisation's
   * default. The documented names complete; other strings are accepted.
   */
  model?: ModelName | undefined;
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
  /** Longest silence between two chunks of a stream before a TimeoutError, in ms. @default 60000 */
  streamIdleTimeoutMs?: number | undefined;
}
