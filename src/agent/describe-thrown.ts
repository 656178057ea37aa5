import { redactText, redactValue } from "../internal/redact.js";

/**
 * The message of whatever was thrown, with its class name when that says
 * something. A thrown object that is not an Error is shown as JSON with its
 * secret-named fields and secret-shaped strings redacted: it may carry a
 * token, and this text reaches logs and the model.
 */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) {
    return thrown.name && thrown.name !== "Error"
      ? `${thrown.name}: ${thrown.message}`
      : thrown.message;
  }
  if (typeof thrown === "string") return thrown;
  try {
    return redactText(JSON.stringify(redactValue(thrown)) ?? String(thrown));
  } catch {
    return redactText(String(thrown));
  }
}
