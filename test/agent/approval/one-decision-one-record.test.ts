import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import type { ApprovalPolicy } from "../../../src/agent/approval/approval-policy.js";
import type { ApprovalAction, Approver } from "../../../src/agent/approver.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { decidingApprover } from "../../helpers/approver-verbs.js";
import { callbackTools } from "../durable/durable-helpers.js";
import { capturingLogger } from "../fixtures.js";

/** An agent whose every audit record goes to `log` (the audit log) and `hooked` (the hook). */
function recordingAgent(options: {
  calls: Array<{ arguments: unknown; id?: string }>;
  approver: Approver;
  approvalPolicy?: ApprovalPolicy;
}) {
  const { tools, deletions } = callbackTools();
  const log: ApprovalAuditRecord[] = [];
  const hooked: ApprovalAuditRecord[] = [];
  const capture = capturingLogger();
  const { calls, approver, approvalPolicy } = options;
  const agent = new Agent({
    model: new ScriptedModel([
      {
        toolCalls: calls.map((call) => ({ name: "delete_callbacks", ...call })),
      },
      { text: "done" },
    ]),
    tools,
    toolConcurrency: 1,
    logger: capture.logger,
    auditLog: { append: async (record) => void log.push(record) },
    onApprovalDecided: (record) => void hooked.push(record),
    approver,
    ...(approvalPolicy ? { approvalPolicy } : {}),
  });
  const auditLines = () => capture.lines.filter((line) => line.audit === "approval");
  return { agent, deletions, log, hooked, auditLines };
}

/** Approves every question with an edit to `edit`. */
function editing(edit: unknown) {
  return new ScriptedApprover(
    Array.from({ length: 3 }, () => (action: ApprovalAction) => ({
      outcome: "approved" as const,
      fingerprint: actionFingerprint(action.toolName, edit, action.target),
      interactionId: "interaction-edit",
      editedArguments: edit,
    })),
  );
}

describe("one decision, one record: a call's last audit record says what happened to it", () => {
  it("an edit the tool's schema refuses is recorded once, as the refusal (invalid_edit)", async () => {
    const { agent, deletions, log, hooked, auditLines } = recordingAgent({
      calls: [{ arguments: { ids: ["cb-1"] } }],
      approver: editing({ ids: [] }),
    });
    const result = await agent.run("tidy");
    expect(deletions).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { code: "invalid_edit" },
    });
    expect(log).toEqual([
      expect.objectContaining({ outcome: "refused", code: "invalid_edit", decidedBy: "gate" }),
    ]);
    expect(hooked).toEqual(log);
    expect(auditLines()).toEqual([
      expect.objectContaining({ outcome: "refused", code: "invalid_edit" }),
    ]);
  });

  it("an edit the policy refuses is one record, not an approval followed by a refusal", async () => {
    const { agent, deletions, log, hooked, auditLines } = recordingAgent({
      calls: [{ arguments: { ids: ["cb-1"] } }],
      approver: editing({ ids: ["cb-3"] }),
      approvalPolicy: {
        edits: true,
        rules: [
          {
            name: "never cb-3",
            tool: "delete_callbacks",
            decision: "deny",
            when: (args) => (args as { ids: string[] }).ids.includes("cb-3"),
          },
        ],
      },
    });
    await agent.run("tidy");
    expect(deletions).toEqual([]);
    expect(log).toEqual([
      expect.objectContaining({
        outcome: "refused",
        code: "policy_denied",
        rule: "never cb-3",
        interactionId: "interaction-edit",
      }),
    ]);
    expect(hooked).toEqual(log);
    expect(auditLines()).toHaveLength(1);
  });

  it("an approval already spent is refused at the start write, and that refusal is the call's one record", async () => {
    // Resuming an older copy of the run's state reads the same approval (its id is kept
    // in the state) a second time: the start write finds it spent.
    const { tools, deletions } = callbackTools();
    const log: ApprovalAuditRecord[] = [];
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_a" }] },
        { text: "done" },
        { text: "done" },
      ]),
      tools,
      auditLog: { append: async (record) => void log.push(record) },
      approver: new ScriptedApprover(["pending"], { checks: ["approve", "approve"] }),
    });
    const suspended = await agent.run("tidy", { suspendOnApproval: true });
    const copy = structuredClone(suspended.state!);
    await agent.resume(suspended.state!);
    const again = await agent.resume(copy);
    expect(deletions).toEqual([["cb-1"]]);
    expect(again.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { code: "already_used" },
    });
    const approvalId = copy.pendingCalls[0]?.approvalId;
    expect(approvalId).toMatch(/\.[\w-]{22}$/);
    expect(log.map((record) => [record.outcome, record.code, record.approvalId])).toEqual([
      ["approved", undefined, approvalId],
      ["refused", "already_used", approvalId],
    ]);
  });

  it("a person's approval, a policy rule and a denial are each one record, logged and hooked once", async () => {
    const { agent, log, hooked, auditLines } = recordingAgent({
      calls: [
        { arguments: { ids: ["cb-1"] }, id: "call_a" },
        { arguments: { ids: ["cb-2"] }, id: "call_b" },
        { arguments: { ids: ["cb-3"] }, id: "call_c" },
      ],
      approver: new ScriptedApprover(["approve", "deny"]),
      approvalPolicy: {
        rules: [
          {
            name: "cb-3 is fine",
            tool: "delete_callbacks",
            decision: "allow",
            when: (args) => (args as { ids: string[] }).ids.includes("cb-3"),
          },
        ],
      },
    });
    await agent.run("tidy");
    // A refusal or a rule's allowance is recorded at once, an approval when its call starts.
    const byCall = [...log].sort((a, b) => a.toolCallId.localeCompare(b.toolCallId));
    expect(byCall.map((record) => [record.toolCallId, record.outcome, record.decidedBy])).toEqual([
      ["call_a", "approved", "person"],
      ["call_b", "refused", "person"],
      ["call_c", "approved", "policy"],
    ]);
    expect(hooked).toEqual(log);
    expect(auditLines()).toHaveLength(3);
  });

  it("an approved call the run is aborted before it starts is recorded as aborted, not approved", async () => {
    const log: ApprovalAuditRecord[] = [];
    const controller = new AbortController();
    const ran: string[] = [];
    const slowDelete = defineTool({
      name: "delete_callbacks",
      description: "Deletes callbacks by id.",
      parameters: z.object({ ids: z.array(z.string()) }),
      needsApproval: true,
      execute: ({ ids }, context) => {
        ran.push(...ids);
        // The first call holds the step's one tool slot until the run is aborted.
        controller.abort();
        return new Promise((resolve) => {
          context.signal.addEventListener("abort", () => resolve({ deleted: 0 }));
        });
      },
    });
    const approve = (action: ApprovalAction) => ({
      outcome: "approved" as const,
      fingerprint: action.fingerprint,
      interactionId: `interaction-${action.toolCallId}`,
    });
    const approver = decidingApprover(approve);
    const agent = new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_a" },
            { name: "delete_callbacks", arguments: { ids: ["cb-2"] }, id: "call_b" },
          ],
        },
        { text: "done" },
      ]),
      tools: [slowDelete],
      toolConcurrency: 1,
      approver,
      auditLog: { append: async (record) => void log.push(record) },
    });
    await agent.run("tidy", { signal: controller.signal });
    expect(ran).toEqual(["cb-1"]);
    expect(log.map((record) => [record.toolCallId, record.outcome, record.code])).toEqual([
      ["call_a", "approved", undefined],
      ["call_b", "refused", "aborted"],
    ]);
  });
});
