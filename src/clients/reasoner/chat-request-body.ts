import type { ChatRequest, CompressionOptions, ExtraBody, ProviderRouting } from "./chat-types.js";
import type { ExtraBodyMode } from "./validate-chat-request.js";

/** Client-wide values merged into every request; the request's own values win. */
export interface ChatDefaults {
  model?: string | undefined;
  provider?: ProviderRouting | undefined;
  compression?: CompressionOptions | undefined;
}

/**
 * The request with the client's defaults filled in: `model` when the request
 * has none, and `extra_body.provider` / `extra_body.compression` merged field
 * by field under the request's own fields. The caller's object is not changed.
 */
export function applyChatDefaults(request: ChatRequest, defaults: ChatDefaults): ChatRequest {
  if (!defaults.model && !defaults.provider && !defaults.compression) return request;
  const merged: ChatRequest = { ...request };
  if (merged.model === undefined && defaults.model !== undefined) merged.model = defaults.model;
  if (defaults.provider || defaults.compression) {
    const extraBody: ExtraBody = { ...request.extra_body };
    if (defaults.provider) extraBody.provider = { ...defaults.provider, ...extraBody.provider };
    if (defaults.compression) {
      extraBody.compression = { ...defaults.compression, ...extraBody.compression };
    }
    merged.extra_body = extraBody;
  }
  return merged;
}

/**
 * The JSON body sent for a (validated) request. `extra_body` stays a literal
 * object, or in `merge` mode its keys move to the top level for
 * OpenRouter-style endpoints. A stream asks for usage in its last chunk.
 */
export function toWireBody(
  request: ChatRequest,
  mode: ExtraBodyMode,
  stream: boolean,
): Record<string, unknown> {
  const { extra_body: extraBody, ...rest } = request;
  const body: Record<string, unknown> = { ...rest };
  if (extraBody && Object.keys(extraBody).length > 0) {
    if (mode === "merge") Object.assign(body, extraBody);
    else body.extra_body = extraBody;
  }
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
