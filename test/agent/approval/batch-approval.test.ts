import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import type { ApprovalAction, ApprovalDecision, Approver } from "../../../src/agent/approver.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { sleep, toolMessages } from "../fixtures.js";

/** `delete_thing`, gated, recording each id it deleted; `slowMs` keeps each run busy a while. */
function deleteTool(slowMs = 0) {
  const deleted: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const tool = defineTool({
    name: "delete_thing",
    description: "Deletes a thing.",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    describeAction: (args) => ({ summary: `Delete thing ${args.id}.` }),
    execute: async (args) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await sleep(slowMs);
      running -= 1;
      deleted.push(args.id);
      return { deleted: args.id };
    },
  });
  return { tool, deleted, mostAtOnce: () => mostAtOnce };
}

/** `read_thing`: read-only, so never asked about. */
const read = defineTool({
  name: "read_thing",
  description: "Reads a thing.",
  parameters: z.object({ id: z.string() }),
  readOnly: true,
  execute: (args) => ({ read: args.id }),
});

/** A model asking to delete `ids` in one answer, then finishing. */
const parallelDeletions = (ids: string[]) =>
  new ScriptedModel([
    { toolCalls: ids.map((id) => ({ name: "delete_thing", arguments: { id } })) },
    { text: "done" },
  ]);

/** An approver answering each question with `answer`, recording the actions of every `ask`. */
function batchApprover(
  answer: (actions: readonly ApprovalAction[]) => unknown[],
): Approver & { asks: ApprovalAction[][] } {
  const asks: ApprovalAction[][] = [];
  return {
    asks,
    async ask(actions: readonly ApprovalAction[]) {
      asks.push([...actions]);
      return `question-${asks.length}`;
    },
    async read(_ticket: string, actions: readonly ApprovalAction[]) {
      return answer(actions) as ApprovalDecision[];
    },
  };
}

/** Runs a model deleting a and b in one answer: what was deleted, and each refusal's code. */
async function deleteAandB(approver: Approver) {
  const { tool, deleted } = deleteTool();
  const result = await new Agent({
    model: parallelDeletions(["a", "b"]),
    tools: [tool],
    approver,
  }).run("go");
  const codes = result.steps[0]!.toolCalls.map((call) =>
    call.approval?.outcome === "refused" ? call.approval.code : call.approval?.outcome,
  );
  return { deleted, codes };
}

const approve = (action: ApprovalAction, number: number): ApprovalDecision => ({
  outcome: "approved",
  fingerprint: action.fingerprint,
  interactionId: `i_1#${number}`,
});
const deny = (): ApprovalDecision => ({ outcome: "refused", code: "denied", reason: "not this" });

describe("one question for the parallel calls of a step", () => {
  it("asks about every gated call at once and runs only the items approved", async () => {
    const { tool, deleted } = deleteTool();
    const approver = batchApprover((actions) =>
      actions.map((action, index) => (index === 1 ? deny() : approve(action, index + 1))),
    );
    const audit: ApprovalAuditRecord[] = [];
    const model = parallelDeletions(["a", "b", "c"]);
    const agent = new Agent({
      model,
      tools: [tool],
      approver,
      auditLog: { append: async (record) => void audit.push(record) },
    });

    const result = await agent.run("delete a, b and c");

    expect(approver.asks).toHaveLength(1);
    const asked = approver.asks[0]!;
    expect(asked.map((action) => action.arguments)).toEqual([
      { id: "a" },
      { id: "b" },
      { id: "c" },
    ]);
    expect(new Set(asked.map((action) => action.fingerprint)).size).toBe(3);
    expect(deleted.sort()).toEqual(["a", "c"]);
    expect(result.steps[0]!.toolCalls.map((call) => call.status)).toEqual([
      "succeeded",
      "refused",
      "succeeded",
    ]);
    // One audit record per item, each with its own fingerprint and question item (a refusal is
    // recorded at once, an approval when its call starts).
    const byCall = [...audit].sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));
    expect(byCall.map((record) => [record.outcome, record.interactionId])).toEqual([
      ["approved", "i_1#1"],
      ["refused", undefined],
      ["approved", "i_1#3"],
    ]);
    expect(byCall.map((record) => record.fingerprint)).toEqual(
      asked.map((action) => action.fingerprint),
    );
    expect(toolMessages(model.requests[1]!.messages)[1]?.content).toContain("not this");
  });

  it("gives each item of the step's question its own scripted answer", async () => {
    const { tool, deleted } = deleteTool();
    const approver = new ScriptedApprover(["approve", "deny", "approve"]);
    const agent = new Agent({ model: parallelDeletions(["a", "b", "c"]), tools: [tool], approver });

    await agent.run("delete a, b and c");

    expect(approver.requests.map((request) => request.action.arguments)).toEqual([
      { id: "a" },
      { id: "b" },
      { id: "c" },
    ]);
    expect(deleted).toHaveLength(2);
  });

  it("asks together even when tools run one at a time, and keeps to toolConcurrency", async () => {
    const { tool, deleted, mostAtOnce } = deleteTool(20);
    const approver = batchApprover((actions) => actions.map(approve));
    const agent = new Agent({
      model: parallelDeletions(["a", "b", "c", "d"]),
      tools: [tool],
      approver,
      toolConcurrency: 1,
    });

    await agent.run("delete four");

    expect(approver.asks.map((batch) => batch.length)).toEqual([4]);
    expect(deleted.sort()).toEqual(["a", "b", "c", "d"]);
    expect(mostAtOnce()).toBe(1);
  });

  it("leaves calls that need no approval out of the question", async () => {
    const { tool, deleted } = deleteTool();
    const approver = batchApprover((actions) => actions.map(approve));
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "delete_thing", arguments: { id: "a" } },
          { name: "read_thing", arguments: { id: "x" } },
          { name: "delete_thing", arguments: { id: "b" } },
        ],
      },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: [tool, read], approver }).run("go");

    expect(approver.asks.map((batch) => batch.map((action) => action.toolName))).toEqual([
      ["delete_thing", "delete_thing"],
    ]);
    expect(result.steps[0]!.toolCalls.every((call) => call.status === "succeeded")).toBe(true);
    expect(deleted.sort()).toEqual(["a", "b"]);
  });

  it("asks a lone gated call of a step as a question of one", async () => {
    const { tool } = deleteTool();
    const approver = batchApprover((actions) => actions.map(approve));
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "delete_thing", arguments: { id: "a" } },
          { name: "read_thing", arguments: { id: "x" } },
        ],
      },
      { text: "done" },
    ]);
    await new Agent({ model, tools: [tool, read], approver }).run("go");

    expect(approver.asks.map((batch) => batch.map((action) => action.arguments))).toEqual([
      [{ id: "a" }],
    ]);
  });

  it("runs items approved under one shared interaction id (the ticket binds, not the id)", async () => {
    const approver = batchApprover((actions) =>
      actions.map((action) => ({ ...approve(action, 1), interactionId: "i_1" })),
    );
    const { deleted, codes } = await deleteAandB(approver);
    expect(deleted.sort()).toEqual(["a", "b"]);
    expect(codes).toEqual(["approved", "approved"]);
  });

  it("refuses an approval given for another item of the question", async () => {
    // Item 1's approval carries item 2's fingerprint, and the other way round.
    const approver = batchApprover((actions) =>
      actions.map((_action, index) => approve(actions[1 - index]!, index + 1)),
    );
    expect(await deleteAandB(approver)).toEqual({
      deleted: [],
      codes: ["fingerprint_mismatch", "fingerprint_mismatch"],
    });
  });

  it.each([
    ["too few answers", (actions: readonly ApprovalAction[]) => [approve(actions[0]!, 1)]],
    ["no list", () => ({ outcome: "approved" }) as unknown as unknown[]],
  ])("refuses every item when the approver gives %s", async (_name, answer) => {
    const approver = batchApprover(answer);
    expect(await deleteAandB(approver)).toEqual({
      deleted: [],
      codes: ["invalid_decision", "invalid_decision"],
    });
  });

  it("refuses every item when the approver throws", async () => {
    const approver = batchApprover(() => {
      throw new Error("service down");
    });
    expect(await deleteAandB(approver)).toEqual({
      deleted: [],
      codes: ["approver_error", "approver_error"],
    });
  });

  it("asks a call two approvers must approve in the step's question, saying so: the approver decides how to ask it", async () => {
    const { tool } = deleteTool();
    const approver = batchApprover((actions) => actions.map(approve));
    await new Agent({
      model: parallelDeletions(["a", "b", "c"]),
      tools: [tool],
      approver,
      approvalPolicy: {
        rules: [
          {
            name: "two people for b",
            tool: "delete_thing",
            decision: "ask",
            required: 2,
            when: (args) => (args as { id: string }).id === "b",
          },
        ],
      },
    }).run("go");

    expect(approver.asks).toHaveLength(1);
    expect(
      approver.asks[0]?.map((action) => [action.arguments, action.requiredApprovers ?? 1]),
    ).toEqual([
      [{ id: "a" }, 1],
      [{ id: "b" }, 2],
      [{ id: "c" }, 1],
    ]);
  });
});
