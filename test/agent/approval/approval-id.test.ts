import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import type { ApprovalAction } from "../../../src/agent/approver.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { callbackTools } from "../durable/durable-helpers.js";

const approvalIdPattern = /^run_[\w.-]+\.[A-Za-z0-9_-]{22}$/;

/** Approves under one interaction id for every question, as a service that reuses its ids would. */
const approveUnderOneInteraction = (action: ApprovalAction) => ({
  outcome: "approved" as const,
  fingerprint: action.fingerprint,
  interactionId: "interaction-1",
});

describe("the agent names each approval", () => {
  it("mints an unguessable approval id per gated action, bound to its run, and spends each once under it", async () => {
    const { tools, deletions } = callbackTools();
    const log: ApprovalAuditRecord[] = [];
    const approver = new ScriptedApprover([approveUnderOneInteraction, approveUnderOneInteraction]);
    const result = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-2"] } }] },
        { text: "done" },
      ]),
      tools,
      approver,
      auditLog: { append: async (record) => void log.push(record) },
    }).run("tidy", { runId: "run_ids_1" });
    const asked = approver.requests.map((request) => request.action.approvalId);
    expect(asked).toHaveLength(2);
    for (const id of asked) expect(id).toMatch(approvalIdPattern);
    expect(asked.every((id) => id.startsWith("run_ids_1."))).toBe(true);
    expect(new Set(asked).size).toBe(2);
    // The service's interaction id is information, never the key: both approvals are spent.
    expect(deletions).toEqual([["cb-1"], ["cb-2"]]);
    expect(result.status).toBe("completed");
    expect(log.map((record) => [record.approvalId, record.interactionId])).toEqual([
      [asked[0], "interaction-1"],
      [asked[1], "interaction-1"],
    ]);
  });

  it("reads a suspended call's approval id back from the run's state, never from the approver", async () => {
    const { tools, deletions } = callbackTools();
    const asker = new ScriptedApprover(["pending"]);
    const suspended = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
      ]),
      tools,
      approver: asker,
    }).run("tidy", { suspendOnApproval: true });
    const kept = suspended.state?.pendingCalls[0]?.approvalId;
    expect(kept).toMatch(approvalIdPattern);
    expect(kept).toBe(asker.requests[0]?.action.approvalId);
    const reader = new ScriptedApprover([], { checks: ["approve"] });
    const resumed = await new Agent({
      model: new ScriptedModel([{ text: "done" }]),
      tools,
      approver: reader,
    }).resume(suspended.state!);
    expect(resumed.status).toBe("completed");
    expect(reader.checkRequests[0]?.pending.action.approvalId).toBe(kept);
    expect(deletions).toEqual([["cb-1"]]);
  });
});
