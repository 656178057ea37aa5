import { redactText } from "../../internal/redact.js";

/** A failure of the messaging service in one redacted line, with its class name when it says something. */
export function describeMessagingError(error: unknown): string {
  const text =
    error instanceof Error
      ? error.name && error.name !== "Error"
        ? `${error.name}: ${error.message}`
        : error.message
      : String(error);
  return redactText(text.replace(/\s+/g, " ").trim());
}
