import type { ApprovalAction, ApprovalDecision, ApprovedDecision } from "../../agent/approver.js";
import { listInWords } from "./approval-message-text.js";
import { refusal } from "./approval-refusal.js";
import type { SentQuestion } from "./messaging-ticket.js";

/** One question put about an action, and its answer so far (`undefined`: open, or withdrawn). */
export interface PersonAnswer {
  sent: SentQuestion;
  decision: ApprovalDecision | undefined;
}

/**
 * One decision from the answers of several people (or, without a
 * directory, links) to the same action: approved once `required` distinct
 * people (by directory id, else by link) approved this action's exact
 * fingerprint, each named once in `approvers` by the link they answered
 * on; any refusal refuses (the first found, with its reason and note,
 * and the link of the question it answered);
 * pending while the answers still open, and the `toCome` people still to
 * be asked (an escalation's), could make up the count; otherwise
 * expired when a question ran out of time, else `not_enough_approvers`.
 * An answer missing because its question was withdrawn is no approval,
 * nor are two answers read from one interaction (the service named two
 * questions alike). Where one approval is enough, that approval is the
 * decision as it came (with an edit, a standing approval or a note).
 */
export function combineApprovals(
  action: ApprovalAction,
  answers: readonly PersonAnswer[],
  required: number,
  toCome = 0,
): ApprovalDecision {
  // For people reading the record: every interaction, in the order asked.
  const interactionId = answers.map((answer) => answer.sent.interactionId).join(", ");
  const decisions = answers.map((answer) => answer.decision);
  const refusing = answers.find((answer) => answer.decision?.outcome === "refused");
  if (refusing?.decision?.outcome === "refused") {
    const refused = refusing.decision;
    // The link of the question refused: whose answer it was.
    return {
      ...refusal(refused.code, refused.reason, interactionId, refused.note),
      approverLink: refused.approverLink ?? refusing.sent.link,
    };
  }
  const interactions = new Set(answers.map((answer) => answer.sent.interactionId));
  const notEnough = () =>
    refusal(
      "not_enough_approvers",
      `"${action.toolName}" needs ${required} approvers to approve it, and their answers did not, so it was not run.`,
      interactionId,
    );
  // Two questions named by one interaction are one person's answer read twice.
  if (interactions.size !== answers.length) return notEnough();
  const approved = answers.filter((answer) => answer.decision?.outcome === "approved");
  if (required === 1 && approved.length > 0) {
    const [first] = approved;
    return { ...(first!.decision as ApprovedDecision), approverLink: first!.sent.link };
  }
  if (
    approved.some(
      ({ decision }) =>
        decision?.outcome !== "approved" ||
        decision.fingerprint !== action.fingerprint ||
        decision.editedArguments !== undefined,
    )
  ) {
    return notEnough();
  }
  // One entry per person: the first link each approved on.
  const byPerson = new Map<string, PersonAnswer>();
  for (const answer of approved) {
    const who = answer.sent.person ?? answer.sent.link;
    if (!byPerson.has(who)) byPerson.set(who, answer);
  }
  const open = decisions.filter(
    (decision) => decision === undefined || decision.outcome === "pending",
  ).length;
  if (byPerson.size >= required) {
    const counted = [...byPerson.values()].slice(0, required);
    const links = counted.map((answer) => answer.sent.link);
    const notes = counted.flatMap(({ decision }) =>
      decision?.outcome === "approved" && decision.note !== undefined ? [decision.note] : [],
    );
    return {
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId,
      approvedBy: `subscription links ${listInWords(links)}`,
      approvers: links.map((approverLink) => ({ approverLink })),
      ...(notes.length > 0 ? { note: notes.join(" / ") } : {}),
    };
  }
  if (byPerson.size + open + toCome >= required) return { outcome: "pending", interactionId };
  const expired = decisions.find((decision) => decision?.outcome === "expired");
  if (expired?.outcome === "expired") {
    return { outcome: "expired", reason: expired.reason, interactionId };
  }
  return notEnough();
}
