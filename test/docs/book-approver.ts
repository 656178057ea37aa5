import { setTimeout as sleep } from "node:timers/promises";
import type { Approver } from "switchyard-agents";

/** Your own record of questions, by the agent's approval id: a table a person answers in. */
export type AnswerBook = Map<string, { question: string; answer?: "approve" | "deny" }>;

/** An approver of your own: each question goes into `book`; the call runs once a person approves. */
export function bookApprover(book: AnswerBook): Approver {
  return {
    async requestApproval(action, { signal }) {
      // The agent names the approval: one id per action, never reused, spent once.
      book.set(action.approvalId, { question: action.description.summary });
      let entry = book.get(action.approvalId);
      while (entry?.answer === undefined) {
        await sleep(20, undefined, { signal }); // an abort ends the wait: the gate refuses
        entry = book.get(action.approvalId);
      }
      if (entry.answer === "deny") {
        return { outcome: "refused", code: "denied", reason: "the person said no" };
      }
      // Only an approval with the action's exact fingerprint lets the call run.
      return { outcome: "approved", fingerprint: action.fingerprint };
    },
  };
}
