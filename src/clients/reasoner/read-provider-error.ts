import { isPlainObject } from "./validation-checks.js";

/** An error a provider reported inside a 200 answer or a stream. */
export interface ProviderErrorReport {
  message: string;
  code: string | number | undefined;
  type: string | undefined;
}

/**
 * The provider's error when `value` carries a top-level `error` (an object
 * with `message`, `code`, `type`, or a bare string); else `undefined`.
 */
export function readProviderError(value: unknown): ProviderErrorReport | undefined {
  if (!isPlainObject(value) || value.error === undefined || value.error === null) return undefined;
  return describeProviderError(value.error);
}

/** Reads `{message, code?, type?}`, a bare string, or anything else as best it can. */
export function describeProviderError(error: unknown): ProviderErrorReport {
  if (typeof error === "string") return { message: error, code: undefined, type: undefined };
  if (isPlainObject(error)) {
    const { message, code, type } = error;
    return {
      message: typeof message === "string" && message !== "" ? message : JSON.stringify(error),
      code: typeof code === "string" || typeof code === "number" ? code : undefined,
      type: typeof type === "string" ? type : undefined,
    };
  }
  return { message: JSON.stringify(error) ?? String(error), code: undefined, type: undefined };
}
