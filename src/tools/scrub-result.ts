import { redactValue } from "../internal/redact.js";

/**
 * A tool result made safe for the model: a deep copy with secret-named
 * fields (`token`, `secret_phrase`, ...) replaced and secret-shaped strings
 * (bearer credentials, JWTs) scrubbed. Every tool set runs its results
 * through this as the last step, besides picking only the fields it shows.
 */
export function scrubResult<Result>(result: Result): Result {
  return redactValue(result) as Result;
}
