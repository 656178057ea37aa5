import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { consultApprover } from "../../src/agent/approval-gate.js";
import type { ApprovalAction } from "../../src/agent/approver.js";
import { actionFingerprint } from "../../src/internal/canonical-json.js";
import { silentLogger } from "../../src/internal/logger.js";
import { type ScriptedApproval, ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { capturingLogger, collect, toolMessages } from "./fixtures.js";

const secretToken = "cb-token-3f9a1d2e";

function deleteCallbacksTool() {
  const executions: unknown[] = [];
  const tool = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks.",
    parameters: z.object({ ids: z.array(z.string()).min(1), token: z.string().optional() }),
    needsApproval: true,
    execute: (args) => {
      executions.push(args);
      return { deleted: args.ids.length };
    },
  });
  return { tool, executions };
}

const deleteCall = {
  name: "delete_callbacks",
  arguments: { ids: ["cb-1", "cb-2"], token: secretToken },
};

async function runWith(approver: ScriptedApprover | undefined, logger = silentLogger()) {
  const { tool, executions } = deleteCallbacksTool();
  const model = new ScriptedModel([{ toolCalls: [deleteCall] }, { text: "done" }]);
  const agent = new Agent({ model, tools: [tool], logger, ...(approver ? { approver } : {}) });
  const result = await agent.run("delete the staging callbacks");
  const told = toolMessages(model.requests[1]?.messages ?? [])[0]?.content ?? "";
  return { result, executions, told, record: result.steps[0]?.toolCalls[0] };
}

describe("the approval gate fails closed", () => {
  it("refuses when no approver is configured", async () => {
    const { result, executions, told, record } = await runWith(undefined);
    expect(executions).toEqual([]);
    expect(result.status).toBe("completed");
    expect(record).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "no_approver" },
    });
    expect(JSON.parse(told)).toEqual({
      error: "approval_refused",
      code: "no_approver",
      reason: "no approver is configured, so calls that need approval are refused",
      message:
        "The call to delete_callbacks was not run: approval could not be obtained (no approver is configured, so calls that need approval are refused). Do not retry the same call unless the user asks you to.",
    });
  });

  it("tells the model the human declined", async () => {
    const { executions, told, record } = await runWith(new ScriptedApprover(["deny"]));
    expect(executions).toEqual([]);
    expect(record?.approval).toEqual({
      outcome: "refused",
      fingerprint: actionFingerprint("delete_callbacks", deleteCall.arguments),
      code: "denied",
      reason: "the scripted approver said no",
      approvalId: expect.stringMatching(/^run_\w+\.[\w-]{22}$/),
    });
    expect(JSON.parse(told)).toEqual({
      error: "approval_refused",
      code: "denied",
      reason: "the scripted approver said no",
      message:
        "The call to delete_callbacks was not run: the human declined it (the scripted approver said no). Do not retry the same call unless the user asks you to.",
    });
  });

  const refusals: Array<[string, ScriptedApproval, string]> = [
    [
      "the approver throws",
      () => {
        throw new Error("chat service down; Bearer abc.def.ghi rejected");
      },
      "approver_error",
    ],
    [
      "the fingerprint is another action's",
      () => ({ outcome: "approved", fingerprint: "sha256:beef" }),
      "fingerprint_mismatch",
    ],
    ["an approval has no fingerprint", () => ({ outcome: "approved" }), "fingerprint_mismatch"],
    ["the answer is null", () => null, "invalid_decision"],
    ["the answer is a string", () => "yes", "invalid_decision"],
    [
      "the outcome is unknown",
      (action) => ({ outcome: "sure", fingerprint: action.fingerprint }),
      "invalid_decision",
    ],
    [
      "the answer is pending",
      (action) => ({ outcome: "pending", fingerprint: action.fingerprint, interactionId: "i-9" }),
      "pending_not_supported",
    ],
  ];

  it.each(refusals)("refuses when %s", async (_label, answer, code) => {
    const { executions, told, record } = await runWith(new ScriptedApprover([answer]));
    expect(executions).toEqual([]);
    expect(record).toMatchObject({ status: "refused", approval: { outcome: "refused", code } });
    const parsed = JSON.parse(told);
    expect(parsed).toMatchObject({ error: "approval_refused", code });
    expect(parsed.message).toMatch(
      /^The call to delete_callbacks was not run: approval could not be obtained \(.+\)\. Do not retry/,
    );
    expect(told).not.toContain("abc.def.ghi");
  });

  it("runs an approved call once; the same call later is asked about again", async () => {
    const { tool, executions } = deleteCallbacksTool();
    const approver = new ScriptedApprover(["approve", "deny"]);
    const model = new ScriptedModel([
      { toolCalls: [deleteCall] },
      { toolCalls: [deleteCall] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: [tool], approver }).run("go");
    expect(executions).toEqual([{ ids: ["cb-1", "cb-2"], token: secretToken }]);
    expect(approver.requests).toHaveLength(2);
    expect(result.steps.map((step) => step.toolCalls[0]?.status)).toEqual([
      "succeeded",
      "refused",
      undefined,
    ]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({
      outcome: "approved",
      approvalId: expect.stringMatching(/^run_\w+\.[\w-]{22}$/),
    });
  });

  it("puts the exact action to the approver, secrets redacted, with the run's signal and no pending allowed", async () => {
    const approver = new ScriptedApprover(["approve"]);
    await runWith(approver);
    const { action, context } = approver.requests[0] as (typeof approver.requests)[number];
    expect(action).toMatchObject({
      toolName: "delete_callbacks",
      toolCallId: "call_1_0",
      // What the approver relays to a person holds no secret; the fingerprint is the real call's.
      arguments: { ids: ["cb-1", "cb-2"], token: "[redacted] secret field token" },
      fingerprint: actionFingerprint("delete_callbacks", {
        token: secretToken,
        ids: ["cb-1", "cb-2"],
      }),
    });
    // The generic description says what runs; the view shows every argument, secrets as placeholders.
    expect(action.description).toEqual({
      summary: 'Run the tool "delete_callbacks" with the arguments below.',
      irreversible: true,
    });
    expect(action.view?.arguments).toBe(
      JSON.stringify({ ids: ["cb-1", "cb-2"], token: "[redacted] secret field token" }, null, 2),
    );
    expect(JSON.stringify(action)).not.toContain(secretToken);
    expect(context.signal).toBeInstanceOf(AbortSignal);
    expect(context.allowPending).toBe(false);
  });

  it("uses the tool's describeAction, and asks only when needsApproval holds", async () => {
    const executions: number[] = [];
    const cancel = defineTool({
      name: "cancel_orders",
      description: "Cancels orders.",
      parameters: z.object({ count: z.number() }),
      needsApproval: async ({ count }) => count > 1,
      describeAction: ({ count }) => ({
        summary: `Cancel ${count} orders`,
        details: ["order A", "order B"],
      }),
      execute: ({ count }) => {
        executions.push(count);
        return "cancelled";
      },
    });
    const approver = new ScriptedApprover(["approve"]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "cancel_orders", arguments: { count: 1 } }] },
      { toolCalls: [{ name: "cancel_orders", arguments: { count: 2 } }] },
      { text: "done" },
    ]);
    await new Agent({ model, tools: [cancel], approver }).run("go");
    expect(executions).toEqual([1, 2]);
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]?.action.description).toEqual({
      summary: "Cancel 2 orders",
      details: ["order A", "order B"],
      irreversible: true,
    });
  });

  it("asks for approval when needsApproval itself throws", async () => {
    const executions: number[] = [];
    const risky = defineTool({
      name: "risky",
      description: "Risky.",
      parameters: z.object({}),
      needsApproval: () => {
        throw new Error("cannot tell");
      },
      execute: () => executions.push(1),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "risky" }] }, { text: "done" }]);
    const result = await new Agent({ model, tools: [risky] }).run("go");
    expect(executions).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({ code: "no_approver" });
  });

  it("logs one audit line per decision, without the arguments' secrets", async () => {
    const capture = capturingLogger();
    await runWith(new ScriptedApprover(["approve"]), capture.logger);
    const audit = capture.lines.filter((line) => line.audit === "approval");
    expect(audit).toEqual([
      expect.objectContaining({
        tool: "delete_callbacks",
        toolCallId: "call_1_0",
        fingerprint: actionFingerprint("delete_callbacks", deleteCall.arguments),
        outcome: "approved",
        approvalId: expect.stringMatching(/\.[\w-]{22}$/),
      }),
    ]);
    expect(capture.text()).not.toContain(secretToken);
    const rawLine = capture
      .text()
      .split("\n")
      .find((line) => line.includes('"audit":"approval"'));
    const keys = [...rawLine!.matchAll(/"(\w+)":/g)].map((match) => match[1]);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys).toEqual([...new Set(keys)]);
  });

  it("emits approval-request and approval-result events", async () => {
    const { tool } = deleteCallbacksTool();
    const model = new ScriptedModel([{ toolCalls: [deleteCall] }, { text: "done" }]);
    const agent = new Agent({ model, tools: [tool], approver: new ScriptedApprover(["deny"]) });
    const events = await collect(agent.stream("go"));
    const types = events
      .map((event) => event.type)
      .filter((type) => type.startsWith("approval") || /^tool-(call|result)$/.test(type));
    expect(types).toEqual(["tool-call", "approval-request", "approval-result", "tool-result"]);
    const request = events.find((event) => event.type === "approval-request");
    expect(request?.type === "approval-request" && request.action.toolName).toBe(
      "delete_callbacks",
    );
    const decision = events.find((event) => event.type === "approval-result");
    expect(decision?.type === "approval-result" && decision.approval.outcome).toBe("refused");
  });
});

describe("consultApprover", () => {
  const action: ApprovalAction = {
    approvalId: "run.approval-of-hold-callbacks",
    toolName: "hold_callbacks",
    toolCallId: "call_1",
    arguments: { types: ["order"] },
    fingerprint: actionFingerprint("hold_callbacks", { types: ["order"] }),
    description: { summary: "Hold order callbacks" },
  };
  const base = { actions: [action], signal: new AbortController().signal, logger: silentLogger() };

  it("returns a pending answer, with the ticket it was asked under, only when the run allows it", async () => {
    const approver = new ScriptedApprover([
      () => ({ outcome: "pending", interactionId: "i-1" }),
      () => ({ outcome: "pending", interactionId: "i-2" }),
    ]);
    expect(await consultApprover({ ...base, approver, allowPending: true })).toEqual([
      {
        outcome: "pending",
        fingerprint: action.fingerprint,
        approvalId: action.approvalId,
        // The scripted approver's ticket names the question by the agent's approval id.
        ticket: action.approvalId,
        interactionId: "i-1",
      },
    ]);
    expect(approver.requests[0]?.context.allowPending).toBe(true);
    expect(await consultApprover({ ...base, approver })).toEqual([
      expect.objectContaining({
        outcome: "refused",
        code: "pending_not_supported",
        approvalId: action.approvalId,
        interactionId: "i-2",
      }),
    ]);
    expect(approver.requests[1]?.context.allowPending).toBe(false);
  });

  it("keeps an approver's own refusal code, and redacts its reason", async () => {
    const approver = new ScriptedApprover([
      () => ({
        outcome: "refused",
        code: "expired",
        reason: "nobody answered; token eyJabc.eyJdef.sig",
      }),
    ]);
    expect(await consultApprover({ ...base, approver })).toEqual([
      {
        outcome: "refused",
        fingerprint: action.fingerprint,
        code: "expired",
        reason: "nobody answered; token [redacted]",
        approvalId: action.approvalId,
      },
    ]);
  });
});
