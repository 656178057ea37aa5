import { isPlainObject } from "./validation-checks.js";

/** An error a provider reported inside a 200 answer or a stream. */
export interface ProviderErrorReport {
  message: string;
  code: string | number | undefined;
  type: string | undefined;
  /** What the provider sent as the error: its `error` value, or the whole object. */
  body: unknown;
}

/**
 * The provider's error when `value` carries a top-level `error` (an object
 * with `message`, `code`, `type`, or a bare string), or FastChat's
 * `{"text": ..., "error_code": <non-zero>}` (its OpenAI-compatible server
 * sends the worker's error so, mid-stream); else `undefined`.
 */
export function readProviderError(value: unknown): ProviderErrorReport | undefined {
  if (!isPlainObject(value)) return undefined;
  if (value.error !== undefined && value.error !== null) return describeProviderError(value.error);
  const { error_code: code, text } = value;
  if (typeof code === "number" && code !== 0 && typeof text === "string") {
    return {
      message: text === "" ? JSON.stringify(value) : text,
      code,
      type: undefined,
      body: value,
    };
  }
  return undefined;
}

/** Reads `{message, code?, type?}`, a bare string, or anything else as best it can. */
export function describeProviderError(error: unknown): ProviderErrorReport {
  if (typeof error === "string") {
    return { message: error, code: undefined, type: undefined, body: error };
  }
  if (isPlainObject(error)) {
    const { message, code, type } = error;
    return {
      message: typeof message === "string" && message !== "" ? message : JSON.stringify(error),
      code: typeof code === "string" || typeof code === "number" ? code : undefined,
      type: typeof type === "string" ? type : undefined,
      body: error,
    };
  }
  return {
    message: JSON.stringify(error) ?? String(error),
    code: undefined,
    type: undefined,
    body: error,
  };
}
