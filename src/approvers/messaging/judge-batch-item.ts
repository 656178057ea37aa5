import {
  batchAnswer,
  maximumItemSelectionLength,
  parseItemSelection,
} from "../../clients/messaging/batch-answer.js";
import type { Interaction } from "../../clients/messaging/messaging-types.js";
import { redactText } from "../../internal/redact.js";
import {
  type ExpectedInteraction,
  type InteractionVerdict,
  judgeInteraction,
} from "./judge-interaction.js";

/** What the answer to one item of a batch question must belong to. */
export interface ExpectedBatchItem extends ExpectedInteraction {
  /** The item's number in the question. */
  number: number;
  /** Every number the question showed, when this process asked it (checked against the answer). */
  offered: readonly number[] | undefined;
}

/**
 * Reads a batch question's interaction for one of its items, failing
 * closed as {@link judgeInteraction} does for one action: `approve` (all)
 * approves it, `deny` (all) refuses it, and `approve_some` approves it only
 * when its number is in the answer's list. A list that cannot be read, or
 * names an action the question did not show, approves none of them.
 */
export function judgeBatchItem(
  interaction: Interaction,
  expected: ExpectedBatchItem,
): InteractionVerdict {
  const chosen = interaction.answer?.optionId;
  const listLength = interaction.answer?.text?.length ?? 0;
  // The list's own cap comes before anything reads the text (judgeInteraction redacts it as a note).
  if (chosen === batchAnswer.approveSome.id && listLength > maximumItemSelectionLength) {
    return {
      outcome: "refused",
      code: "unreadable_answer",
      reason: `The answer to the approval request for "${expected.toolName}" (action ${expected.number}) chose to approve some actions, but it is ${listLength} characters long, more than the ${maximumItemSelectionLength} an answer choosing actions may have, so none of them was approved and the action was not run.`,
    };
  }
  const verdict = judgeInteraction(interaction, { ...expected, editsAllowed: false });
  if (interaction.state !== "answered" || chosen !== batchAnswer.approveSome.id) return verdict;
  // The interaction and fingerprint checks come first: they refuse with their own codes.
  if (verdict.outcome !== "refused" || verdict.code !== "unreadable_answer") return verdict;
  const tool = `"${expected.toolName}" (action ${expected.number})`;
  const selection = parseItemSelection(interaction.answer?.text ?? "", expected.offered);
  if (!selection.ok) {
    return {
      outcome: "refused",
      code: "unreadable_answer",
      reason: `The answer to the approval request for ${tool} chose to approve some actions, but ${redactText(selection.problem)}, so none of them was approved and the action was not run.`,
    };
  }
  const note = selection.note ? redactText(selection.note).slice(0, 500) : undefined;
  if (selection.numbers.includes(expected.number)) {
    return { outcome: "approved", ...(note ? { note } : {}) };
  }
  return {
    outcome: "refused",
    code: "denied",
    reason: `The approver approved action${selection.numbers.length === 1 ? "" : "s"} ${selection.numbers.join(", ")} of the question, not ${tool}.${note ? ` Their note: "${note}".` : ""}`,
    ...(note ? { note } : {}),
  };
}
