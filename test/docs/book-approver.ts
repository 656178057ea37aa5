import { setTimeout as sleep } from "node:timers/promises";
import type { ApprovalDecision, Approver } from "switchyard-agents";

/** Your own record of questions, by the agent's approval id: a table a person answers in. */
export type AnswerBook = Map<string, { question: string; answer?: "approve" | "deny" }>;

/** An approver of your own: each question goes into `book`; a call runs once a person approves it. */
export function bookApprover(book: AnswerBook): Approver {
  return {
    // Ask: write each question down. The agent names each approval; the ticket is yours.
    async ask(actions) {
      for (const { approvalId, description } of actions) {
        book.set(approvalId, { question: description.summary });
      }
      return "book";
    },
    // Read: one answer per action, in order. An abort ends the wait, and the gate refuses.
    read: (_ticket, actions, { signal }) =>
      Promise.all(
        actions.map(async ({ approvalId, fingerprint }): Promise<ApprovalDecision> => {
          while (book.get(approvalId)?.answer === undefined) await sleep(20, undefined, { signal });
          if (book.get(approvalId)?.answer === "deny") {
            return { outcome: "refused", code: "denied", reason: "the person said no" };
          }
          return { outcome: "approved", fingerprint }; // this exact action, once
        }),
      ),
  };
}
