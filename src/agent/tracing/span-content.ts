import { redactArgumentsText, redactMessages } from "../durable/redact-run-state.js";
import type { ModelMessage } from "../model-message.js";

/** Messages as a span records them (`recordContent`): JSON, with secrets redacted. */
export function contentOfMessages(
  messages: readonly ModelMessage[],
  knownSecrets: readonly string[],
): string {
  return JSON.stringify(redactMessages(messages, knownSecrets));
}

/** Tool arguments or a tool result as a span records them: secrets redacted, inside JSON too. */
export function contentOfText(text: string, knownSecrets: readonly string[]): string {
  return redactArgumentsText(text, knownSecrets);
}
