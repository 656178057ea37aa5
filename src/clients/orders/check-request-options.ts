import { ConfigurationError } from "../../errors/configuration-error.js";
import type { RequestOptions } from "../request-options.js";

/** Rejects per-call options the transport would misread (a non-signal, a bad timeout). */
export function checkRequestOptions(options: RequestOptions | undefined): void {
  if (options === undefined) return;
  const problems: string[] = [];
  if (typeof options !== "object" || options === null) {
    throw new ConfigurationError("request options must be an object such as { signal, timeoutMs }");
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    problems.push("options.signal must be an AbortSignal (from an AbortController)");
  }
  if (
    options.timeoutMs !== undefined &&
    (!Number.isInteger(options.timeoutMs) || options.timeoutMs < 1)
  ) {
    problems.push(
      `options.timeoutMs ${String(options.timeoutMs)} must be an integer of at least 1`,
    );
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
}
