import type { ApproverIdentity } from "../agent/approval/approver-directory.js";
import { wrapApprover } from "../agent/approval/wrap-approver.js";
import type { ApprovalDecision, Approver } from "../agent/approver.js";
import type { AnswerFunction } from "../simulators/messaging/answer-mode.js";

/**
 * Marks the answers typed at this terminal as the local user's. The
 * person at the terminal answers through the messaging simulator (its
 * terminal answerer, in this process), so the approver reads their answer
 * from the simulator like any other; the interactions answered here are
 * remembered, and the approver's decisions on them carry `answeredBy: {
 * channel: "terminal", id: user }`. An answer given any other way (the
 * simulator's inbox page) is not marked: it counts as its link's.
 */
export interface TerminalAnswers {
  /** The answer function, remembering each interaction it answered. */
  answerer(answer: AnswerFunction): AnswerFunction;
  /** The approver, its decisions on those interactions marked as the local user's. */
  approver(approver: Approver): Approver;
}

/** {@link TerminalAnswers} for the local user `user`. */
export function terminalAnswers(user: string): TerminalAnswers {
  const answered = new Set<string>();
  const answeredBy: ApproverIdentity = { channel: "terminal", id: user };
  const mark = (decision: ApprovalDecision): ApprovalDecision =>
    (decision.outcome === "approved" || decision.outcome === "refused") &&
    decision.interactionId !== undefined &&
    answered.has(decision.interactionId)
      ? { ...decision, answeredBy }
      : decision;
  return {
    answerer: (answer) => async (question, context) => {
      const choice = await answer(question, context);
      if (choice !== undefined) answered.add(question.interaction_id);
      return choice;
    },
    approver: (approver) => wrapApprover(approver, { decision: mark }),
  };
}
