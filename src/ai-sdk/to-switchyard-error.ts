import type * as ProviderModule from "@ai-sdk/provider";
import { describeProviderError } from "../clients/reasoner/read-provider-error.js";
import { StreamError } from "../clients/reasoner/stream-error.js";
import { createApiError } from "../errors/api-error.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { SwitchyardError } from "../errors/switchyard-error.js";
import {
  AbortedError,
  ConnectionError,
  type RequestTarget,
  TimeoutError,
} from "../errors/transport-errors.js";
import {
  redactError,
  redactHeaders,
  redactText,
  redactUrl,
  redactValue,
} from "../internal/redact.js";

/** What an AI SDK failure is read with, and how the call ended. */
export interface FailureContext {
  provider: typeof ProviderModule;
  /** The model, as errors name it when the provider gives no URL: `url` is `provider/modelId`. */
  target: RequestTarget;
  /** The caller's signal fired. */
  aborted: boolean;
  /** The call's own timeout fired, after this many milliseconds. */
  timedOutAfterMs: number | undefined;
}

/**
 * An AI SDK failure as the Switchyard error the reasoning client would
 * throw for the same thing: an `APICallError` with a status is the
 * `ApiError` subclass for it (`RateLimitError` for 429, `BadRequestError`
 * for 400, ...), carrying the status, the response's headers and its body;
 * one without a status (no answer) is a `ConnectionError`; the caller's
 * abort an `AbortedError`, the call's timeout a `TimeoutError`; a missing
 * API key or setting (`LoadAPIKeyError`, `LoadSettingError`) a
 * `ConfigurationError`. Anything else is a `SwitchyardError` naming the
 * model. The original is the `cause`, secrets removed.
 */
export function toSwitchyardError(error: unknown, context: FailureContext): Error {
  if (error instanceof SwitchyardError) return error;
  const { provider, target } = context;
  // A provider's error carries the answer's body, which may echo a key.
  const cause = redactError(error);
  if (context.timedOutAfterMs !== undefined) {
    return new TimeoutError(target, context.timedOutAfterMs, {
      cause,
      message: `The model ${target.url} did not answer within ${context.timedOutAfterMs} ms; raise the timeoutMs option if it is slow`,
    });
  }
  if (context.aborted || isAbortError(error)) {
    return new AbortedError("The model call was aborted by the caller", { cause });
  }
  if (provider.APICallError.isInstance(error)) {
    // The provider's URL may carry a key in its query (`?key=`), and its answer's headers cookies.
    const where: RequestTarget = { method: "POST", url: redactUrl(error.url) };
    if (error.statusCode === undefined) return new ConnectionError(where, { cause });
    const bodyText = error.responseBody ?? "";
    return createApiError(
      {
        ...where,
        status: error.statusCode,
        headers: redactHeaders(new Headers(error.responseHeaders ?? {})),
        body: redactValue(error.data ?? parseBody(bodyText)),
        bodyText: redactText(bodyText),
      },
      { cause },
    );
  }
  if (provider.LoadAPIKeyError.isInstance(error) || provider.LoadSettingError.isInstance(error)) {
    return new ConfigurationError(error.message, { cause });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchyardError(`The model ${target.url} failed: ${message}`, { cause });
}

/** Whether a failure may be sent again, as the provider says (`APICallError.isRetryable`); the caller retries timeouts itself. */
export function isRetryableFailure(original: unknown, provider: typeof ProviderModule): boolean {
  return provider.APICallError.isInstance(original) && original.isRetryable;
}

/** An `error` part inside a stream whose headers said 200: a `StreamError` of kind `provider_error`. */
export function toStreamError(error: unknown, target: RequestTarget): StreamError {
  const report =
    error instanceof Error
      ? { message: error.message, code: undefined, type: undefined, body: undefined }
      : describeProviderError(error);
  return new StreamError(
    {
      kind: "provider_error",
      method: target.method,
      url: target.url,
      detail: report.message,
      code: report.code,
      type: report.type,
      body: redactValue(report.body),
    },
    { cause: redactError(error) },
  );
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
