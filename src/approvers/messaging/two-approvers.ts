import type { ApprovalAction, ApprovalDecision } from "../../agent/approver.js";
import { refusal } from "./approval-refusal.js";

/**
 * One decision from the answers of two approver links to the same question:
 * approved only when both approved this action's fingerprint (each named in
 * `approvers`); any refusal refuses (the first found, with its reason and
 * note); otherwise expired, or pending while either has not answered. An
 * answer missing because its question was withdrawn (the other refused) is
 * no approval, nor are two answers read from one interaction (the service
 * named both questions alike).
 */
export function combineTwoApprovals(
  action: ApprovalAction,
  pair: readonly [string, string],
  links: readonly [string, string],
  decisions: ReadonlyArray<ApprovalDecision | undefined>,
): ApprovalDecision {
  // For people reading the record: both interactions, first link first.
  const interactionId = `${pair[0]}, ${pair[1]}`;
  const refused = decisions.find((decision) => decision?.outcome === "refused");
  if (refused?.outcome === "refused") {
    return {
      ...refusal(refused.code, refused.reason, interactionId, refused.note),
      ...(refused.approverLink !== undefined ? { approverLink: refused.approverLink } : {}),
    };
  }
  const expired = decisions.find((decision) => decision?.outcome === "expired");
  if (expired?.outcome === "expired") {
    return { outcome: "expired", reason: expired.reason, interactionId };
  }
  if (decisions.some((decision) => decision?.outcome === "pending")) {
    return { outcome: "pending", interactionId };
  }
  const approved = decisions.filter((decision) => decision?.outcome === "approved");
  if (
    // Two questions named by one interaction are one person's answer read twice.
    pair[0] === pair[1] ||
    approved.length !== 2 ||
    approved.some(
      (decision) =>
        decision?.outcome !== "approved" ||
        decision.fingerprint !== action.fingerprint ||
        decision.editedArguments !== undefined,
    )
  ) {
    return refusal(
      "not_enough_approvers",
      `"${action.toolName}" needs both approvers to approve it, and both answers did not approve it, so it was not run.`,
      interactionId,
    );
  }
  const notes = approved.flatMap((decision) =>
    decision?.outcome === "approved" && decision.note !== undefined ? [decision.note] : [],
  );
  return {
    outcome: "approved",
    fingerprint: action.fingerprint,
    interactionId,
    approvedBy: `subscription links ${links[0]} and ${links[1]}`,
    approvers: links.map((approverLink) => ({ approverLink })),
    ...(notes.length > 0 ? { note: notes.join(" / ") } : {}),
  };
}
