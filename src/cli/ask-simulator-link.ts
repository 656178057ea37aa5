import type { ApprovalAction, Approver } from "../agent/approver.js";
import { attachSecrets, secretsOf } from "../internal/redact.js";

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
  const asked: Approver = {
    ask: (actions, context) => approver.ask(actions.map(withoutPeople), context),
    read: (ticket, actions, context) => approver.read(ticket, actions.map(withoutPeople), context),
    ...(typeof approver.peek === "function"
      ? { peek: (ticket, approvalIds, context) => approver.peek!(ticket, approvalIds, context) }
      : {}),
  };
  attachSecrets(asked, secretsOf(approver));
  return asked;
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
