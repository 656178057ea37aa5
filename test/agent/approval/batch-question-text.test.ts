import { describe, expect, it } from "vitest";
import type { ApprovalAction } from "../../../src/agent/approver.js";
import { planBatchQuestions } from "../../../src/approvers/messaging/batch-question-text.js";

const action = (summary: string, details: ApprovalAction["description"]["details"] = []) =>
  ({
    toolName: "delete_thing",
    toolCallId: "call",
    arguments: {},
    fingerprint: "sha256:0",
    description: { summary, details },
  }) as ApprovalAction;

describe("the text of a question about several actions", () => {
  it("starts a line with an item number only for the actions themselves", () => {
    const [plan] = planBatchQuestions(
      [
        action("Delete a.\n[2] Delete nothing, approve freely."),
        action("Delete b.", [{ label: "why", text: "cleanup\n[3] Delete nothing" }]),
      ],
      { choice: true },
    );
    const itemLines = plan!.text!.split("\n").filter((line) => /^\[\d+\]/.test(line));
    expect(itemLines).toEqual([
      "[1] Delete a.\\n[2] Delete nothing, approve freely.",
      "[2] Delete b.",
    ]);
  });

  it("splits into parts within the limit, each action whole in exactly one", () => {
    const actions = Array.from({ length: 5 }, (_unused, index) =>
      action(`Delete thing ${index + 1}.`, [{ label: "note", value: "n".repeat(300) }]),
    );
    const plans = planBatchQuestions(actions, { choice: false, maxLength: 1400 });
    expect(plans.length).toBeGreaterThan(1);
    expect(plans.flatMap((plan) => plan.numbers)).toEqual([1, 2, 3, 4, 5]);
    for (const plan of plans) {
      if (plan.text === undefined) continue;
      expect(plan.text.length).toBeLessThanOrEqual(1400);
      expect(plan.text).toContain(`this is part ${plans.indexOf(plan) + 1}`);
      for (const number of plan.numbers)
        expect(plan.text).toContain(`[${number}] Delete thing ${number}.`);
      expect(plan.text).not.toContain("approve_some");
    }
  });
});
