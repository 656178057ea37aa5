import { redactText, redactValue } from "../internal/redact.js";

/**
 * The tool message text for a result: strings as they are, anything else as
 * JSON (`null` for `undefined`), with secrets removed either way. Throws when
 * the value cannot be JSON (a BigInt, ...).
 */
export function serializeToolResult(result: unknown): string {
  if (typeof result === "string") return redactText(result);
  if (result === undefined) return "null";
  // The round trip applies toJSON (Dates, URLs, ...) before redaction walks plain objects.
  const plain: unknown = JSON.parse(JSON.stringify(result) ?? "null");
  return JSON.stringify(redactValue(plain));
}
