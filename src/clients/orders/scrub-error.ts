import { redactText } from "../../internal/redact.js";

/**
 * Returns `error` unchanged when neither it nor its cause mentions one of
 * `secrets` (or anything token-shaped); otherwise a plain copy with them
 * scrubbed and no `cause`. For errors from code this client does not own,
 * such as a caller's `deploy` callback.
 */
export function scrubError(error: unknown, secrets: readonly string[]): Error {
  const original = error instanceof Error ? error : new Error(describe(error));
  const cause = original.cause;
  const causeText =
    cause instanceof Error ? `${cause.message}\n${cause.stack ?? ""}` : describe(cause);
  const texts = [original.message, original.stack ?? "", causeText];
  if (texts.every((text) => redactText(text, secrets) === text)) return original;
  const copy = new Error(redactText(original.message, secrets));
  copy.name = original.name;
  copy.stack = redactText(original.stack ?? "", secrets);
  return copy;
}

function describe(value: unknown): string {
  if (value === undefined) return "";
  try {
    return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}
