import { wrapApprover } from "../agent/approval/wrap-approver.js";
import type { ApprovalAction, Approver } from "../agent/approver.js";

/**
 * The approver of the messaging simulator, with an approver directory: the
 * simulator has one link, which this terminal (or its inbox page, or its
 * own answer mode) answers, so the people the directory lists are not
 * asked on links of their own (the messaging approver would route to
 * them, and no such link is on the simulator). Who may approve, and how
 * many, still go with each question; the gate judges every answer against
 * the directory as the channel recognised it.
 */
export function askSimulatorLink(approver: Approver): Approver {
  return wrapApprover(approver, { action: withoutPeople });
}

/** The action with `whoMayApprove` naming roles and counts only, no people to route to. */
function withoutPeople(action: ApprovalAction): ApprovalAction {
  const who = action.whoMayApprove;
  if (who === undefined) return action;
  const { people: _people, escalation, ...rest } = who;
  return {
    ...action,
    whoMayApprove: {
      ...rest,
      ...(escalation !== undefined
        ? { escalation: { roles: escalation.roles, afterMs: escalation.afterMs } }
        : {}),
    },
  };
}
