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

/** What a second `read` of a question (a resumed run reading its answer) is given. */
export interface ScriptedCheck {
  /** The ticket the question was asked under, and the action about to run. */
  pending: { ticket: string; action: ApprovalAction };
  context: ApprovalContext;
}

/**
 * One scripted answer to a resumed run's read of an earlier question:
 * `approve` (binding to the action's fingerprint), `deny`, `pending`
 * (nobody answered yet), or a function returning any value.
 */
export type ScriptedCheckAnswer =
  | "approve"
  | "deny"
  | "pending"
  | ((check: ScriptedCheck) => unknown);

/**
 * An `Approver` that answers from a script, one entry per action asked
 * about, and records every action asked. Asked more often than scripted,
 * it throws (which the approval gate treats as a refusal). The first read
 * of a question gives the scripted answers; a later read of it (a
 * suspended run resumed, by this approver or another) gives the next
 * `checks` answers, one per action read.
 *
 * @example
 * const approver = new ScriptedApprover(["deny", "approve"]);
 * // a durable run: the question is out, and approved when the run is resumed
 * const durable = new ScriptedApprover(["pending"], { checks: ["approve"] });
 */
export class ScriptedApprover implements Approver {
  /** Every action asked about, in order, with its context. */
  readonly requests: Array<{ action: ApprovalAction; context: ApprovalContext }> = [];
  /** Every later read of a question (a resumed run's), in order. */
  readonly checkRequests: ScriptedCheck[] = [];
  readonly #answers: readonly ScriptedApproval[];
  readonly #checks: readonly ScriptedCheckAnswer[];
  /** The answers of questions asked and not read yet, by ticket. */
  readonly #unread = new Map<string, Promise<unknown[]>>();

  constructor(
    answers: readonly ScriptedApproval[],
    options: { checks?: readonly ScriptedCheckAnswer[] } = {},
  ) {
    this.#answers = [...answers];
    this.#checks = [...(options.checks ?? [])];
  }

  async ask(actions: readonly ApprovalAction[], context: ApprovalContext): Promise<string> {
    const answers = actions.map((action) => {
      this.requests.push({ action, context });
      const number = this.requests.length;
      const answer = this.#answers[number - 1];
      if (answer === undefined) {
        throw new Error(
          `ScriptedApprover: approval request ${number} came in, but the script has only ${this.#answers.length} answer(s).`,
        );
      }
      return typeof answer === "function"
        ? answer(action, context)
        : decision(answer, action.fingerprint);
    });
    // The agent's approval ids name the question: no id of the script's own.
    const ticket = actions.map((action) => action.approvalId).join(" ");
    const all = Promise.all(answers);
    // Read at once by the gate; an abort in between must not leave the rejection unhandled.
    all.catch(() => {});
    this.#unread.set(ticket, all);
    return ticket;
  }

  async read(
    ticket: string,
    actions: readonly ApprovalAction[],
    context: ApprovalContext,
  ): Promise<ApprovalDecision[]> {
    const unread = this.#unread.get(ticket);
    this.#unread.delete(ticket);
    if (unread) return (await unread) as ApprovalDecision[];
    return Promise.all(
      actions.map(async (action) => {
        const check = { pending: { ticket, action }, context };
        this.checkRequests.push(check);
        const number = this.checkRequests.length;
        const answer = this.#checks[number - 1];
        if (answer === undefined) {
          throw new Error(
            `ScriptedApprover: approval check ${number} came in, but the script has only ${this.#checks.length} check answer(s).`,
          );
        }
        if (typeof answer === "function") return (await answer(check)) as ApprovalDecision;
        return decision(answer, action.fingerprint);
      }),
    );
  }
}

function decision(answer: "approve" | "deny" | "pending", fingerprint: string): ApprovalDecision {
  if (answer === "approve") return { outcome: "approved", fingerprint };
  if (answer === "pending") return { outcome: "pending" };
  return { outcome: "refused", code: "denied", reason: "the scripted approver said no" };
}
