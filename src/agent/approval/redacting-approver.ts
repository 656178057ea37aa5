import { attachSecrets, type SecretRegistry, secretsOf } from "../../internal/redact.js";
import type { ApprovalAction, Approver } from "../approver.js";
import { redactApprovalAction } from "../build-approval-action.js";

/**
 * `approver` as an agent uses it: every action it is shown (asked about,
 * asked about together, or read back after a resume) first has the
 * agent's secrets removed ({@link redactApprovalAction}), so a secret the
 * model put in a call's arguments never reaches the person or the service
 * that carries the question. Its decisions are returned as they are (the
 * gate judges them against the real action), and everything else it has
 * (`peekApproval`, its own secrets) is passed through.
 */
export function redactingApprover(approver: Approver, secrets: SecretRegistry): Approver {
  const shown = (action: ApprovalAction) => redactApprovalAction(action, secrets);
  const wrapped: Approver = {
    requestApproval: (action, context) => approver.requestApproval(shown(action), context),
    ...(typeof approver.requestApprovals === "function"
      ? {
          requestApprovals: (actions, context) =>
            approver.requestApprovals!(actions.map(shown), context),
        }
      : {}),
    ...(typeof approver.checkApproval === "function"
      ? {
          checkApproval: (pending, context) =>
            approver.checkApproval!({ ...pending, action: shown(pending.action) }, context),
        }
      : {}),
    ...(typeof approver.peekApproval === "function"
      ? { peekApproval: (pending, context) => approver.peekApproval!(pending, context) }
      : {}),
  };
  attachSecrets(wrapped, secretsOf(approver));
  return wrapped;
}
