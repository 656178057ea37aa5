import type { SecretRegistry } from "../../internal/redact.js";
import type { Approver } from "../approver.js";
import { showApprovalAction } from "../build-approval-action.js";
import { wrapApprover } from "./wrap-approver.js";

/**
 * `approver` as an agent uses it: every action it is shown (asked about, or
 * read back after a resume) carries its one view and shows the agent's
 * secrets as placeholders ({@link showApprovalAction}), so a secret the
 * model put in a call's arguments never reaches the person or the service
 * that carries the question. Its tickets and decisions are returned as they are (the gate
 * judges them against the real action), and `peek` and its own secrets are
 * passed through.
 */
export function redactingApprover(approver: Approver, secrets: SecretRegistry): Approver {
  const wrapped = wrapApprover(approver, {
    action: (action) => showApprovalAction(action, secrets),
  });
  givenApprovers.set(wrapped, unwrappedApprover(approver));
  return wrapped;
}

/** The approver each {@link redactingApprover} wraps. */
const givenApprovers = new WeakMap<Approver, Approver>();

/**
 * The approver as the application gave it: the one a
 * {@link redactingApprover} wraps, else `approver` itself. Two agents given
 * one approver ask the same person through it.
 */
export function unwrappedApprover(approver: Approver): Approver {
  return givenApprovers.get(approver) ?? approver;
}
