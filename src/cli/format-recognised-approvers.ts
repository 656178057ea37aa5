import type { RecognisedApprover } from "../agent/approval/approver-directory.js";
import { escapeUntrustedText, quoteUntrustedValue } from "../internal/untrusted-text.js";

/**
 * The people of a decision record on one line, for a terminal: each by
 * directory id and name, the channel their answer came on and the evidence
 * that recognised them, every value escaped (a directory or a channel may
 * hold any text), e.g. `"bob" "Bob Roy" on agUi as "bob@example.com"`.
 */
export function formatRecognisedApprovers(people: readonly RecognisedApprover[]): string {
  return people
    .map(
      (person) =>
        `${quoteUntrustedValue(person.id)} ${quoteUntrustedValue(person.name)} on ${escapeUntrustedText(person.channel)} as ${quoteUntrustedValue(person.evidence)}`,
    )
    .join(", ");
}
