import { redactText } from "../internal/redact.js";

/**
 * Base class of every error Switchyard throws. Catch this to handle all of them.
 * Its message goes through the redaction patterns (bearer credentials, JWTs,
 * `sk-` keys, the user part of URLs) whatever built it; clients and the agent
 * also remove the exact secrets they were given.
 */
export class SwitchyardError extends Error {
  override readonly name: string = "SwitchyardError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(redactText(message), options);
  }
}
