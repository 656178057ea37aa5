import type { SecretRegistry } from "../internal/redact.js";
import type { ModelMessage } from "./model-message.js";
import { isOutputCorrectionMessage } from "./structured-output.js";

/** The longest task shown to a person, in characters (a longer one is cut, with `…`). */
const longestTask = 200;

/**
 * The run's task, as a person asked about one of its calls is shown it: the
 * user message the run answers, i.e. the last user message of its
 * conversation (a conversation continued, as a chat thread's turn, is
 * about its newest message, not its first), leaving out the messages the
 * run itself adds to correct a structured answer. Cut to 200 characters,
 * the secrets removed; `undefined` when there is no user message with text.
 * Untrusted text: escape it where it is shown.
 */
export function runTaskOf(
  messages: readonly ModelMessage[],
  secrets: SecretRegistry,
): string | undefined {
  const asked = messages.findLast(
    (message) =>
      message.role === "user" &&
      message.content.trim() !== "" &&
      !isOutputCorrectionMessage(message.content),
  );
  if (asked?.role !== "user") return undefined;
  const text = secrets.redactText(asked.content.trim());
  return text.length > longestTask ? `${text.slice(0, longestTask - 1)}…` : text;
}
