import type { ApprovalAction } from "../../agent/approver.js";
import { batchAnswer } from "../../clients/messaging/batch-answer.js";
import { maximumMessageTextLength } from "../../clients/messaging/messaging-requests.js";
import { describeActionParts } from "./approval-message-text.js";

/**
 * One question of a batch: the numbers (1-based, in the order the model
 * asked) of the actions it asks about, and its text; no text when the
 * action goes alone, as a question of its own (it does not fit whole beside
 * others).
 */
export interface BatchQuestionPlan {
  numbers: number[];
  text?: string;
}

/** Options of {@link planBatchQuestions}. */
export interface BatchQuestionOptions {
  /** The service carries free text: offer `approve_some` with the numbers to approve. */
  choice: boolean;
  /** @default maximumMessageTextLength (4000) */
  maxLength?: number;
}

// Room kept for the lines before and after the actions (their numbers are short).
const frameReserve = 480;

/**
 * Splits the actions of one step into as few questions as fit the message
 * limit, each action numbered and whole, never cut: an action whose
 * description does not fit whole beside the frame goes alone as a question
 * of its own (which says so when even it must be shortened), as does an
 * action left alone in a part.
 */
export function planBatchQuestions(
  actions: readonly ApprovalAction[],
  options: BatchQuestionOptions,
): BatchQuestionPlan[] {
  const maxLength = options.maxLength ?? maximumMessageTextLength;
  const room = maxLength - frameReserve;
  const groups: Array<Array<{ number: number; block: string }>> = [];
  const alone: number[] = [];
  let group: Array<{ number: number; block: string }> = [];
  let used = 0;
  actions.forEach((action, index) => {
    const number = index + 1;
    const block = itemBlock(action, number);
    if (block === undefined || block.length + 2 > room) {
      alone.push(number);
      return;
    }
    if (used + block.length + 2 > room) {
      groups.push(group);
      group = [];
      used = 0;
    }
    group.push({ number, block });
    used += block.length + 2;
  });
  if (group.length > 0) groups.push(group);

  const plans: BatchQuestionPlan[] = alone.map((number) => ({ numbers: [number] }));
  groups.forEach((items, part) => {
    const numbers = items.map((item) => item.number);
    if (items.length === 1) {
      plans.push({ numbers });
      return;
    }
    const text = [
      header(actions.length, numbers, groups.length, part),
      ...items.map((item) => item.block),
      footer(numbers, options.choice),
    ].join("\n\n");
    plans.push({ numbers, text });
  });
  return plans.sort((a, b) => (a.numbers[0] ?? 0) - (b.numbers[0] ?? 0));
}

/** An action, whole, under its number; undefined when one of its lines had to be cut. */
function itemBlock(action: ApprovalAction, number: number): string | undefined {
  const parts = describeActionParts(action);
  if (parts.details.cutLines) return undefined;
  return [`[${number}] ${parts.summary}`, ...parts.where, ...parts.details, ...parts.foot]
    .map((line, index) => (index === 0 ? line : `    ${line}`))
    .join("\n");
}

function header(total: number, numbers: number[], parts: number, part: number): string {
  const first = `Approval needed for ${total} actions the agent asks to run together. Each is numbered; only what you approve runs.`;
  if (parts === 1) return first;
  return `${first} They are asked in ${parts} messages; this is part ${part + 1}, with actions ${numbers.join(", ")}.`;
}

function footer(numbers: number[], choice: boolean): string {
  const all = `Reply ${batchAnswer.approveAll.id} to run all ${numbers.length} actions of this message (${numbers.join(", ")}), ${batchAnswer.denyAll.id} to run none of them`;
  if (!choice) return `${all}.`;
  return `${all}, or ${batchAnswer.approveSome.id} with the numbers to run (e.g. ${numbers.slice(0, 2).join(",")}); an action whose number you do not give is not run.`;
}
