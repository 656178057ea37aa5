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
import { redactValue } from "../internal/redact.js";

/** What an AI SDK failure is read with, and how the call ended. */
export interface FailureContext {
  provider: typeof ProviderModule;
  /** The model, named as errors name it when the provider gives no URL. */
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
 * model, the original as its `cause`.
 */
export function toSwitchyardError(error: unknown, context: FailureContext): Error {
  if (error instanceof SwitchyardError) return error;
  const { provider, target } = context;
  if (context.timedOutAfterMs !== undefined) {
    return new TimeoutError(target, context.timedOutAfterMs, {
      cause: error,
      message: `${target.method} ${target.url} timed out after ${context.timedOutAfterMs} ms; raise the timeoutMs option if the model is slow`,
    });
  }
  if (context.aborted || isAbortError(error)) {
    return new AbortedError("The model call was aborted by the caller", { cause: error });
  }
  if (provider.APICallError.isInstance(error)) {
    const where: RequestTarget = { method: "POST", url: error.url };
    if (error.statusCode === undefined) return new ConnectionError(where, { cause: error });
    const bodyText = error.responseBody ?? "";
    return createApiError(
      {
        ...where,
        status: error.statusCode,
        headers: new Headers(error.responseHeaders ?? {}),
        body: redactValue(error.data ?? parseBody(bodyText)),
        bodyText,
      },
      { cause: error },
    );
  }
  if (provider.LoadAPIKeyError.isInstance(error) || provider.LoadSettingError.isInstance(error)) {
    return new ConfigurationError(error.message, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SwitchyardError(`${target.method} ${target.url} failed: ${message}`, {
    cause: error,
  });
}

/** Whether a failure may be sent again: the provider's own verdict, or a timeout of this read-like call. */
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
    { cause: error },
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
