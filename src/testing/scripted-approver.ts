import type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  Approver,
} from "../agent/approver.js";

/**
 * One scripted answer: `approve` (with the action's fingerprint), `deny`,
 * `pending` (the question is out; honoured only by durable runs, as a real
 * approver would), or a function returning any value (a decision,
 * garbage), throwing, or waiting.
 */
export type ScriptedApproval =
  | "approve"
  | "deny"
  | "pending"
  | ((action: ApprovalAction, context: ApprovalContext) => unknown);

/** What `checkApproval` is given: the question asked earlier and the action about to run. */
export interface ScriptedCheck {
  pending: { fingerprint: string; interactionId: string; action: ApprovalAction };
  context: ApprovalContext;
}

/**
 * One scripted answer to `checkApproval` (reading an earlier question's
 * answer in a resumed run): `approve` (binding to the fingerprint the
 * question was asked for), `deny`, `pending` (nobody answered yet), or a
 * function returning any value.
 */
export type ScriptedCheckAnswer =
  | "approve"
  | "deny"
  | "pending"
  | ((check: ScriptedCheck) => unknown);

/**
 * An `Approver` that answers from a script, one entry per request, and
 * records every request. Asked more often than scripted, it throws (which
 * the approval gate treats as a refusal). `checks` scripts `checkApproval`
 * the same way, for suspended runs that are resumed.
 *
 * @example
 * const approver = new ScriptedApprover(["deny", "approve"]);
 * // a durable run: the question is out, and approved when the run is resumed
 * const durable = new ScriptedApprover(["pending"], { checks: ["approve"] });
 */
export class ScriptedApprover implements Approver {
  /** Every request received, in order. */
  readonly requests: Array<{ action: ApprovalAction; context: ApprovalContext }> = [];
  /** Every `checkApproval` call received, in order. */
  readonly checkRequests: ScriptedCheck[] = [];
  readonly #answers: readonly ScriptedApproval[];
  readonly #checks: readonly ScriptedCheckAnswer[];

  constructor(
    answers: readonly ScriptedApproval[],
    options: { checks?: readonly ScriptedCheckAnswer[] } = {},
  ) {
    this.#answers = [...answers];
    this.#checks = [...(options.checks ?? [])];
  }

  async requestApproval(
    action: ApprovalAction,
    context: ApprovalContext,
  ): Promise<ApprovalDecision> {
    this.requests.push({ action, context });
    const number = this.requests.length;
    const answer = this.#answers[number - 1];
    if (answer === undefined) {
      throw new Error(
        `ScriptedApprover: approval request ${number} came in, but the script has only ${this.#answers.length} answer(s).`,
      );
    }
    if (typeof answer === "function") return (await answer(action, context)) as ApprovalDecision;
    // A pending question is named by the agent's approval id: no id of the script's own.
    return decision(answer, action.fingerprint, action.approvalId);
  }

  async checkApproval(
    pending: { fingerprint: string; interactionId: string; action: ApprovalAction },
    context: ApprovalContext,
  ): Promise<ApprovalDecision> {
    const check = { pending, context };
    this.checkRequests.push(check);
    const number = this.checkRequests.length;
    const answer = this.#checks[number - 1];
    if (answer === undefined) {
      throw new Error(
        `ScriptedApprover: approval check ${number} came in, but the script has only ${this.#checks.length} check answer(s).`,
      );
    }
    if (typeof answer === "function") return (await answer(check)) as ApprovalDecision;
    return decision(answer, pending.fingerprint, pending.interactionId);
  }
}

function decision(
  answer: "approve" | "deny" | "pending",
  fingerprint: string,
  question: string,
): ApprovalDecision {
  if (answer === "approve") return { outcome: "approved", fingerprint };
  if (answer === "pending") return { outcome: "pending", fingerprint, interactionId: question };
  return { outcome: "refused", code: "denied", reason: "the scripted approver said no" };
}
