import type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  Approver,
} from "../agent/approver.js";

/**
 * One scripted answer: `approve` (with the action's fingerprint), `deny`, or
 * a function returning any value (a decision, garbage), throwing, or waiting.
 */
export type ScriptedApproval =
  | "approve"
  | "deny"
  | ((action: ApprovalAction, context: ApprovalContext) => unknown);

/**
 * An `Approver` that answers from a script, one entry per request, and
 * records every request. Asked more often than scripted, it throws (which
 * the approval gate treats as a refusal).
 *
 * @example
 * const approver = new ScriptedApprover(["deny", "approve"]);
 */
export class ScriptedApprover implements Approver {
  /** Every request received, in order. */
  readonly requests: Array<{ action: ApprovalAction; context: ApprovalContext }> = [];
  readonly #answers: readonly ScriptedApproval[];

  constructor(answers: readonly ScriptedApproval[]) {
    this.#answers = [...answers];
  }

  async requestApproval(
    action: ApprovalAction,
    context: ApprovalContext,
  ): Promise<ApprovalDecision> {
    this.requests.push({ action, context });
    const number = this.requests.length;
    const answer = this.#answers[number - 1];
    const interactionId = `scripted-interaction-${number}`;
    if (answer === undefined) {
      throw new Error(
        `ScriptedApprover: approval request ${number} came in, but the script has only ${this.#answers.length} answer(s).`,
      );
    }
    if (answer === "approve")
      return { outcome: "approved", fingerprint: action.fingerprint, interactionId };
    if (answer === "deny") {
      return {
        outcome: "refused",
        code: "denied",
        reason: "the scripted approver said no",
        interactionId,
      };
    }
    return (await answer(action, context)) as ApprovalDecision;
  }
}
