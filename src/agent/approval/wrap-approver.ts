import { attachSecrets, secretsOf } from "../../internal/redact.js";
import type { ApprovalAction, ApprovalDecision, Approver } from "../approver.js";

/** What {@link wrapApprover} changes on the way through. */
export interface ApproverChanges {
  /** Each action as the wrapped approver is given it (asked about, or read back). */
  action?: (action: ApprovalAction) => ApprovalAction;
  /** Each decision the wrapped approver reads, as the caller gets it. */
  decision?: (decision: ApprovalDecision) => ApprovalDecision;
}

/**
 * `approver` with its actions and decisions changed on the way through;
 * tickets, `peek` and the approver's own secrets pass as they are.
 */
export function wrapApprover(approver: Approver, changes: ApproverChanges): Approver {
  const { action, decision } = changes;
  const given = (actions: readonly ApprovalAction[]) => (action ? actions.map(action) : actions);
  const wrapped: Approver = {
    ask: (actions, context) => approver.ask(given(actions), context),
    read: decision
      ? async (ticket, actions, context) =>
          (await approver.read(ticket, given(actions), context)).map(decision)
      : (ticket, actions, context) => approver.read(ticket, given(actions), context),
    ...(typeof approver.peek === "function"
      ? { peek: (ticket, approvalIds, context) => approver.peek!(ticket, approvalIds, context) }
      : {}),
  };
  attachSecrets(wrapped, secretsOf(approver));
  return wrapped;
}
