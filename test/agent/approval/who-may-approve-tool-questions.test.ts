import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import type { ApprovalPolicy } from "../../../src/agent/approval/approval-rule.js";
import type {
  ApproverDirectory,
  ApproverIdentity,
  ApproverPerson,
} from "../../../src/agent/approval/approver-directory.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { approvedBy, by, PeopleApprover, testDirectory } from "./people-approver.js";

/** The test directory, but its withRoles lists Bob without his identities. */
function listingBobWithoutIdentities(): ApproverDirectory {
  const directory = testDirectory();
  return {
    recognize: (identity) => directory.recognize(identity),
    person: (id) => directory.person(id),
    withRoles: () => [{ id: "bob", name: "Bob Roy", roles: ["lead"] } as unknown as ApproverPerson],
  };
}

/**
 * A tool that asks a person itself, mid-call, before it refunds: it runs
 * with no question of the gate's unless `approvalPolicy` asks, started by
 * Alice, its own question answered by `answeredBy`.
 */
async function refundAsking(
  answers: ApproverIdentity[],
  approvalPolicy: ApprovalPolicy = {},
  startedBy = "alice",
  approverDirectory: ApproverDirectory = testDirectory(),
) {
  const refunded: string[] = [];
  const decided: ApprovalAuditRecord[] = [];
  const refund = defineTool({
    name: "refund_order",
    description: "Refunds an order, asking a person first when it is large.",
    parameters: z.object({ order: z.string() }),
    needsApproval: false,
    execute: async ({ order }, context) => {
      const approved = await context.askApproval?.({
        toolName: "refund_order_large",
        arguments: { order },
        description: { summary: `Refund order ${order} in full` },
      });
      if (approved !== true) return { refunded: false };
      refunded.push(order);
      return { refunded: true };
    },
  });
  const approver = new PeopleApprover(answers.map((identity) => approvedBy(identity)));
  const agent = new Agent({
    model: new ScriptedModel([
      { toolCalls: [{ name: "refund_order", arguments: { order: "o-1" }, id: "call_1" }] },
      { text: "done" },
    ]),
    tools: [refund],
    approver,
    approverDirectory,
    approvalPolicy,
    onApprovalDecided: (record) => void decided.push(record),
  });
  const result = await agent.run("refund o-1", { startedBy });
  const asked = decided.filter((record) => record.action === "refund_order_large");
  return { refunded, asked, approver, result };
}

describe("who may approve: a question a tool asks mid-call", () => {
  it("is answered by anyone in the directory but the starter (defaultApprovers), and the record names them", async () => {
    const { refunded, asked, approver } = await refundAsking([by.bob]);
    expect(refunded).toEqual(["o-1"]);
    expect(asked).toMatchObject([
      {
        outcome: "approved",
        people: [{ id: "bob", channel: "agUi", evidence: "bob@example.com" }],
      },
    ]);
    expect(approver.asked[0]?.whoMayApprove).toMatchObject({ required: 1, excluded: "alice" });
  });

  it("the starter's own answer, an unknown person's, or one of the wrong role runs nothing", async () => {
    const cases: [ApproverIdentity, ApprovalPolicy, string][] = [
      [by.alice, {}, "self_approval"],
      [by.mallory, {}, "approver_not_allowed"],
      [by.carol, { defaultApprovers: { roles: ["oncall"] } }, "approver_not_allowed"],
    ];
    for (const [identity, policy, code] of cases) {
      const { refunded, asked } = await refundAsking([identity], policy);
      expect(refunded).toEqual([]);
      expect(asked).toMatchObject([{ outcome: "refused", code }]);
    }
  });

  it("is judged by the requirement of the rule that asked about the call", async () => {
    const policy: ApprovalPolicy = {
      rules: [{ name: "refunds", tool: "refund_order", decision: "ask", roles: ["finance"] }],
    };
    // Carol (finance) approves the call and its question; Bob (not finance) cannot answer the tool's.
    const allowed = await refundAsking([by.carol, by.carol], policy);
    expect(allowed.refunded).toEqual(["o-1"]);
    expect(allowed.asked).toMatchObject([{ outcome: "approved", people: [{ id: "carol" }] }]);
    const wrongRole = await refundAsking([by.carol, by.bob], policy);
    expect(wrongRole.refunded).toEqual([]);
    expect(wrongRole.asked).toMatchObject([{ outcome: "refused", code: "approver_not_allowed" }]);
  });

  it("a directory listing a person who is not whole: nobody is asked, approver_error", async () => {
    const { refunded, asked, approver } = await refundAsking(
      [by.bob],
      {},
      "alice",
      listingBobWithoutIdentities(),
    );
    expect(refunded).toEqual([]);
    expect(approver.asked).toEqual([]);
    expect(asked).toMatchObject([
      {
        outcome: "refused",
        code: "approver_error",
        reason: expect.stringMatching(/withRoles\(roles\)\[0\]\.identities must be an object/),
      },
    ]);
  });
});

describe("who may approve: a question to extend the run's budget", () => {
  async function runExtending(
    answeredBy: ApproverIdentity,
    approvalPolicy: ApprovalPolicy = {},
    approverDirectory: ApproverDirectory = testDirectory(),
  ) {
    const ran: number[] = [];
    const decided: ApprovalAuditRecord[] = [];
    const count = defineTool({
      name: "count",
      description: "Counts.",
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => {
        ran.push(n);
        return { n };
      },
    });
    const approver = new PeopleApprover([approvedBy(answeredBy)]);
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "count", arguments: { n: 1 }, id: "call_1" }] },
        { toolCalls: [{ name: "count", arguments: { n: 2 }, id: "call_2" }] },
        { text: "done" },
      ]),
      tools: [count],
      approver,
      approverDirectory,
      approvalPolicy,
      budget: { maxToolCalls: 1, onExhausted: "ask", extendBy: { toolCalls: 1 } },
      onApprovalDecided: (record) => void decided.push(record),
    });
    const result = await agent.run("count", { startedBy: "alice" });
    return { ran, decided, result, approver };
  }

  it("an allowed person extends it, and the record names them", async () => {
    const { ran, decided, result, approver } = await runExtending(by.erin);
    expect(result.status).toBe("completed");
    expect(ran).toEqual([1, 2]);
    expect(decided).toMatchObject([
      { action: "extend_run_budget", outcome: "approved", people: [{ id: "erin" }] },
    ]);
    expect(approver.asked[0]?.whoMayApprove).toMatchObject({ excluded: "alice" });
  });

  it("the starter, an unknown person or one outside defaultApprovers' roles extends nothing", async () => {
    const cases: [ApproverIdentity, ApprovalPolicy, string][] = [
      [by.alice, {}, "self_approval"],
      [by.mallory, {}, "approver_not_allowed"],
      [by.carol, { defaultApprovers: { roles: ["lead"] } }, "approver_not_allowed"],
    ];
    for (const [identity, policy, code] of cases) {
      const { ran, decided, result } = await runExtending(identity, policy);
      expect(result.status).toBe("budget_exhausted");
      expect(ran).toEqual([1]);
      expect(decided).toMatchObject([{ action: "extend_run_budget", outcome: "refused", code }]);
    }
  });

  it("a directory listing a person who is not whole extends nothing, and nobody is asked", async () => {
    const { ran, decided, result, approver } = await runExtending(
      by.erin,
      {},
      listingBobWithoutIdentities(),
    );
    expect(result.status).toBe("budget_exhausted");
    expect(ran).toEqual([1]);
    expect(approver.asked).toEqual([]);
    expect(decided).toMatchObject([
      {
        action: "extend_run_budget",
        outcome: "refused",
        code: "approver_error",
        reason: expect.stringMatching(/withRoles\(roles\)\[0\]\.identities must be an object/),
      },
    ]);
  });
});
