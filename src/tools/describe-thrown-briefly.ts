import { redactText } from "../internal/redact.js";

const maximumLength = 300;

/** One line saying what went wrong, secrets removed, at most 300 characters. */
export function describeThrownBriefly(thrown: unknown): string {
  const text =
    thrown instanceof Error
      ? thrown.name && thrown.name !== "Error"
        ? `${thrown.name}: ${thrown.message}`
        : thrown.message
      : String(thrown);
  const flat = redactText(text).replace(/\s+/g, " ").trim();
  return flat.length > maximumLength ? `${flat.slice(0, maximumLength - 1)}…` : flat;
}
