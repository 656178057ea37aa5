import type { WhoMayApprove } from "../agent/approver.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";

/**
 * The lines of an elicitation that say who may approve the call, when an
 * approver directory judges the answer: how many people, of which roles,
 * who they are, and who may not (the person who started the call). No
 * lines without `whoMayApprove`. Names come from the directory, and are
 * escaped all the same: a name from an identity provider could hold a
 * line break.
 */
export function whoMayApproveLines(who: WhoMayApprove | undefined): string[] {
  if (who === undefined) return [];
  const roles =
    who.roles.length === 0
      ? ""
      : ` (${who.roles.length === 1 ? "role" : "roles"}: ${who.roles.map(escapeUntrustedText).join(", ")})`;
  const count = who.required === 1 ? "one person" : `${who.required} different people`;
  const people = who.people?.map(
    (person) => `${escapeUntrustedText(person.name)} (${escapeUntrustedText(person.id)})`,
  );
  const lines = [
    people === undefined
      ? `Who may approve: ${count} in the approver directory${roles}.`
      : people.length === 0
        ? `Who may approve: nobody in the approver directory${roles}, so it cannot be approved.`
        : `Who may approve: ${count} among ${people.join(", ")}${roles}.`,
  ];
  if (who.excluded !== undefined) {
    lines.push(
      `${escapeUntrustedText(who.excluded)} started this and may not approve it themselves.`,
    );
  }
  return lines;
}
