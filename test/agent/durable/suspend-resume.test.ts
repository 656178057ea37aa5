import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { RunNotResumableError } from "../../../src/agent/durable/durable-errors.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import type { ScriptedCheckAnswer } from "../../../src/testing/scripted-approver.js";
import { callbackTools, changed, listAndDelete, toolMessagesById } from "./durable-helpers.js";

const deleteFingerprint = actionFingerprint("delete_callbacks", { ids: ["cb-1", "cb-2"] });

/** Runs until the approver answers pending; returns the suspended result. */
async function suspendedRun() {
  const { tools, deletions } = callbackTools();
  const model = new ScriptedModel([listAndDelete]);
  const approver = new ScriptedApprover(["pending"]);
  const agent = new Agent({ model, tools, approver, instructions: "Keep callbacks tidy." });
  const result = await agent.run("delete cb-1 and cb-2", { suspendOnApproval: true });
  return { result, model, approver, deletions };
}

/** A new agent, as another process would build it, answering checks from `checks`. */
function resumingAgent(checks: ScriptedCheckAnswer[], finalText = "done") {
  const { tools, deletions, remaining } = callbackTools();
  const model = new ScriptedModel([{ text: finalText }]);
  const approver = new ScriptedApprover([], { checks });
  const agent = new Agent({ model, tools, approver, instructions: "Keep callbacks tidy." });
  return { agent, model, approver, deletions, remaining };
}

function stateOf(result: { state?: RunState }): RunState {
  if (!result.state) throw new Error("the result has no state");
  return result.state;
}

describe("a pending approval suspends the run", () => {
  it("ends suspended with a state holding the pending call, after running the rest of the step", async () => {
    const { result, model, approver, deletions } = await suspendedRun();
    expect(result.status).toBe("suspended");
    expect(result.runId).toMatch(/^run_\d{8}T\d{6}Z_[0-9a-f]{8}$/);
    expect(deletions).toEqual([]);
    expect(model.requests).toHaveLength(1);
    expect(approver.requests[0]?.context).toMatchObject({
      allowPending: true,
      runId: result.runId,
    });

    const state = stateOf(result);
    expect(state).toMatchObject({
      format: "switchyard.run-state",
      version: 1,
      runId: result.runId,
      status: "suspended",
      stepCount: 1,
      maxSteps: 10,
    });
    expect(state.pendingCalls).toEqual([
      {
        toolCallId: "call_list",
        toolName: "list_callbacks",
        rawArguments: "{}",
        arguments: {},
        phase: "finished",
        status: "succeeded",
        content: JSON.stringify({ callbacks: ["cb-1", "cb-2", "cb-3"] }),
      },
      {
        toolCallId: "call_delete",
        toolName: "delete_callbacks",
        rawArguments: JSON.stringify({ ids: ["cb-1", "cb-2"] }),
        arguments: { ids: ["cb-1", "cb-2"] },
        phase: "awaiting_approval",
        fingerprint: deleteFingerprint,
        approvalId: expect.stringMatching(/^run_[\w.-]+\.[\w-]{22}$/),
        ticket: expect.stringMatching(/\.[\w-]{22}$/),
      },
    ]);
    // No tool message yet: the conversation ends with the assistant message asking for both calls.
    expect(state.messages.map((message) => message.role)).toEqual(["system", "user", "assistant"]);
    expect(result.steps[0]?.toolCalls.map((call) => call.status)).toEqual([
      "succeeded",
      "awaiting_approval",
    ]);
  });

  it("refuses suspendOnApproval without an approver", async () => {
    const { tools } = callbackTools();
    const noApprover = new Agent({ model: new ScriptedModel([]), tools });
    const attempt = noApprover.run("go", { suspendOnApproval: true });
    await expect(attempt).rejects.toBeInstanceOf(ConfigurationError);
    await expect(attempt).rejects.toThrow(/suspendOnApproval needs an approver/);
  });

  it("streams a pending approval, the waiting call and a suspended finish, with no step-finish", async () => {
    const { tools } = callbackTools();
    const model = new ScriptedModel([listAndDelete]);
    const agent = new Agent({ model, tools, approver: new ScriptedApprover(["pending"]) });
    const stream = agent.stream("delete", { suspendOnApproval: true });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.type);
    expect(types).not.toContain("step-finish");
    expect(types.at(-1)).toBe("finish");
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "approval-result",
        toolCallId: "call_delete",
        approval: {
          outcome: "pending",
          fingerprint: deleteFingerprint,
          approvalId: expect.stringMatching(/\.[\w-]{22}$/),
          ticket: expect.stringMatching(/\.[\w-]{22}$/),
        },
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "tool-result",
        toolCall: expect.objectContaining({ status: "awaiting_approval", content: "" }),
      }),
    );
    expect((await stream.result).status).toBe("suspended");
  });
});

describe("resume", () => {
  it("runs an approved call once in a new agent, then gives the model every tool message in order", async () => {
    const { result } = await suspendedRun();
    const resumed = resumingAgent(["approve"]);
    const final = await resumed.agent.resume(stateOf(result));

    expect(final.status).toBe("completed");
    expect(final.output).toBe("done");
    expect(resumed.deletions).toEqual([["cb-1", "cb-2"]]);
    expect(resumed.approver.requests).toHaveLength(0);
    expect(resumed.approver.checkRequests).toHaveLength(1);
    // The answer is read by the ticket the question was asked under, for the same action.
    expect(resumed.approver.checkRequests[0]?.pending).toMatchObject({
      ticket: stateOf(result).pendingCalls[1]?.ticket,
      action: {
        fingerprint: deleteFingerprint,
        approvalId: stateOf(result).pendingCalls[1]?.approvalId,
      },
    });

    const sent = resumed.model.requests[0]?.messages ?? [];
    expect(sent.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
    ]);
    expect(sent.slice(3).map((message) => message.role === "tool" && message.tool_call_id)).toEqual(
      ["call_list", "call_delete"],
    );
    expect(toolMessagesById(sent)).toEqual({
      call_list: { callbacks: ["cb-1", "cb-2", "cb-3"] },
      call_delete: { deleted: 2 },
    });
    expect(final.steps.map((step) => step.stepNumber)).toEqual([1, 2]);
    expect(final.steps[0]?.toolCalls.map((call) => [call.toolCallId, call.status])).toEqual([
      ["call_delete", "succeeded"],
    ]);
    expect(stateOf(final)).toMatchObject({ status: "completed", stepCount: 2, pendingCalls: [] });
  });

  it("tells the model about a denial read later and runs nothing", async () => {
    const { result } = await suspendedRun();
    const resumed = resumingAgent(["deny"]);
    const final = await resumed.agent.resume(stateOf(result));
    expect(final.status).toBe("completed");
    expect(resumed.deletions).toEqual([]);
    const told = toolMessagesById(resumed.model.requests[0]?.messages ?? []);
    expect(told.call_delete).toMatchObject({ error: "approval_refused", code: "denied" });
  });

  it("suspends again while the answer is pending, asking nothing and calling no model", async () => {
    const { result } = await suspendedRun();
    const resumed = resumingAgent(["pending"]);
    const again = await resumed.agent.resume(stateOf(result));
    expect(again.status).toBe("suspended");
    expect(again.runId).toBe(result.runId);
    expect(resumed.model.requests).toHaveLength(0);
    expect(resumed.approver.requests).toHaveLength(0);
    expect(resumed.deletions).toEqual([]);
    const state = stateOf(again);
    expect(state.pendingCalls.map((call) => call.phase)).toEqual(["finished", "awaiting_approval"]);
    // It keeps the question's ticket and approval id, to read the answer by later.
    expect(state.pendingCalls[1]).toMatchObject({
      ticket: stateOf(result).pendingCalls[1]?.ticket,
      approvalId: stateOf(result).pendingCalls[1]?.approvalId,
    });
    expect(state.messages).toEqual(stateOf(result).messages);

    const later = resumingAgent(["approve"]);
    expect((await later.agent.resume(state)).status).toBe("completed");
    expect(later.deletions).toEqual([["cb-1", "cb-2"]]);
  });

  it("settles two pending calls over two resumes; the one already run is not run again", async () => {
    const { tools } = callbackTools();
    const twoDeletes = {
      toolCalls: [
        { name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_a" },
        { name: "delete_callbacks", arguments: { ids: ["cb-2"] }, id: "call_b" },
      ],
    };
    const first = await new Agent({
      model: new ScriptedModel([twoDeletes]),
      tools,
      approver: new ScriptedApprover(["pending", "pending"]),
    }).run("delete both", { suspendOnApproval: true });
    const [firstId, secondId] = stateOf(first).pendingCalls.map((call) => call.approvalId);
    expect(firstId).not.toBe(secondId);
    // One question for the step: both calls keep its one ticket.
    const tickets = stateOf(first).pendingCalls.map((call) => call.ticket);
    expect(tickets[0]).toBeTruthy();
    expect(tickets[1]).toBe(tickets[0]);

    const byApproval: ScriptedCheckAnswer = ({ pending }) =>
      pending.action.approvalId === firstId
        ? { outcome: "approved", fingerprint: pending.action.fingerprint }
        : { outcome: "pending" };
    const second = resumingAgent([byApproval, byApproval]);
    const partly = await second.agent.resume(stateOf(first));
    expect(partly.status).toBe("suspended");
    expect(second.deletions).toEqual([["cb-1"]]);
    expect(stateOf(partly).pendingCalls.map((call) => call.phase)).toEqual([
      "finished",
      "awaiting_approval",
    ]);

    const third = resumingAgent(["approve"]);
    const final = await third.agent.resume(stateOf(partly));
    expect(final.status).toBe("completed");
    expect(third.deletions).toEqual([["cb-2"]]);
    expect(third.approver.checkRequests).toHaveLength(1);
    expect(toolMessagesById(third.model.requests[0]?.messages ?? [])).toEqual({
      call_a: { deleted: 1 },
      call_b: { deleted: 1 },
    });
  });

  it("never runs again a destructive call that had started; tells the model how to check", async () => {
    const { result } = await suspendedRun();
    const crashed = changed(stateOf(result), (state) => {
      state.status = "running";
      const call = state.pendingCalls[1];
      if (call) {
        call.phase = "started";
        delete call.interactionId;
      }
    });
    const resumed = resumingAgent([]);
    await expect(resumed.agent.resume(crashed)).rejects.toThrow(RunNotResumableError);
    await expect(resumed.agent.resume(crashed)).rejects.toThrow(/takeOver: true/);

    const final = await resumed.agent.resume(crashed, { takeOver: true });
    expect(final.status).toBe("completed");
    expect(resumed.deletions).toEqual([]);
    expect(resumed.approver.checkRequests).toHaveLength(0);
    expect(final.steps[0]?.toolCalls[0]?.status).toBe("outcome_unknown");
    const told = toolMessagesById(resumed.model.requests[0]?.messages ?? []).call_delete as {
      error: string;
      message: string;
      read_only_tools: string[];
    };
    expect(told.error).toBe("outcome_unknown");
    expect(told.read_only_tools).toEqual(["list_callbacks"]);
    expect(told.message).toContain("It was not run again");
    expect(told.message).toContain("list_callbacks");
    expect(told.message).toContain("whether they are already gone");
  });

  it("after a crash, runs the calls that had not started, but not one whose saved arguments lost a secret", async () => {
    const { result } = await suspendedRun();
    const redactedArguments = JSON.stringify({ ids: ["cb-1"], token: "[redacted]" });
    const crashed = changed(stateOf(result), (state) => {
      state.status = "running";
      state.pendingCalls = state.pendingCalls.map((call) => ({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        rawArguments: call.toolName === "delete_callbacks" ? redactedArguments : call.rawArguments,
        phase: "requested",
      }));
      const assistant = state.messages.at(-1);
      const call = assistant?.role === "assistant" ? assistant.tool_calls?.[1] : undefined;
      if (call) call.function.arguments = redactedArguments;
    });
    const resumed = resumingAgent([]);
    const final = await resumed.agent.resume(crashed, { takeOver: true });
    expect(final.status).toBe("completed");
    expect(resumed.deletions).toEqual([]);
    expect(resumed.approver.requests).toHaveLength(0);
    expect(final.steps[0]?.toolCalls.map((call) => call.status)).toEqual([
      "succeeded",
      "invalid_arguments",
    ]);
    const told = toolMessagesById(resumed.model.requests[0]?.messages ?? []);
    expect(told.call_list).toEqual({ callbacks: ["cb-1", "cb-2", "cb-3"] });
    expect(told.call_delete).toMatchObject({
      error: "invalid_arguments",
      message: expect.stringContaining(
        "its arguments held a secret, which a saved run never keeps",
      ),
    });
  });

  it("after a crash once every call of the step had ended, asks the model again with their results", async () => {
    const { result } = await suspendedRun();
    const crashed = changed(stateOf(result), (state) => {
      state.status = "running";
      state.pendingCalls = state.pendingCalls.map((call) => ({
        ...call,
        phase: "finished",
        status: "succeeded",
        content: JSON.stringify({ call: call.toolCallId }),
      }));
    });
    const resumed = resumingAgent([]);
    const final = await resumed.agent.resume(crashed, { takeOver: true });
    expect(final.status).toBe("completed");
    expect(final.output).toBe("done");
    expect(resumed.model.requests).toHaveLength(1);
    expect(toolMessagesById(resumed.model.requests[0]?.messages ?? [])).toEqual({
      call_list: { call: "call_list" },
      call_delete: { call: "call_delete" },
    });
    expect(resumed.deletions).toEqual([]);
  });

  it("reports a pending call of a tool that no longer exists as an unknown tool", async () => {
    const { result } = await suspendedRun();
    const { tools } = callbackTools();
    const model = new ScriptedModel([{ text: "ok" }]);
    const approver = new ScriptedApprover([], { checks: ["approve"] });
    const agent = new Agent({ model, tools: tools.slice(0, 1), approver });
    const final = await agent.resume(stateOf(result));
    expect(final.status).toBe("completed");
    expect(approver.checkRequests).toHaveLength(0);
    expect(toolMessagesById(model.requests[0]?.messages ?? []).call_delete).toMatchObject({
      error: "unknown_tool",
      valid_tools: ["list_callbacks"],
    });
  });

  it("refuses a pending call whose arguments changed since the question, without reading the answer", async () => {
    const { result } = await suspendedRun();
    const tampered = changed(stateOf(result), (state) => {
      const other = JSON.stringify({ ids: ["cb-3"] });
      const assistant = state.messages.at(-1);
      const call = assistant?.role === "assistant" ? assistant.tool_calls?.[1] : undefined;
      if (call) call.function.arguments = other;
      if (state.pendingCalls[1]) state.pendingCalls[1].rawArguments = other;
    });
    const resumed = resumingAgent(["approve"]);
    const final = await resumed.agent.resume(tampered);
    expect(resumed.deletions).toEqual([]);
    expect(resumed.approver.checkRequests).toHaveLength(0);
    expect(final.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "fingerprint_mismatch" },
    });
  });

  it("refuses to resume a run that ended, and names what to do instead", async () => {
    const { tools } = callbackTools();
    const done = await new Agent({
      model: new ScriptedModel([{ text: "nothing to do" }]),
      tools,
      approver: new ScriptedApprover([]),
    }).run("hello", { suspendOnApproval: true });
    expect(done.status).toBe("completed");
    const resumed = resumingAgent([]);
    const attempt = resumed.agent.resume(stateOf(done));
    await expect(attempt).rejects.toBeInstanceOf(RunNotResumableError);
    await expect(attempt).rejects.toThrow(
      /already ended with status completed; only a suspended run can be resumed/,
    );
  });

  it("needs an approver to read a pending answer", async () => {
    const { result } = await suspendedRun();
    const { tools } = callbackTools();
    const model = new ScriptedModel([]);
    const agent = new Agent({ model, tools });
    const attempt = agent.resume(stateOf(result));
    await expect(attempt).rejects.toBeInstanceOf(ConfigurationError);
    await expect(attempt).rejects.toThrow(/this agent has no approver to read it/);
    expect(model.requests).toHaveLength(0);
  });

  it("needs the run's store to resume by id a run it does not hold", async () => {
    const resumed = resumingAgent([]);
    await expect(resumed.agent.resume("run_1")).rejects.toThrow(
      /Run "run_1" is not in this agent's memory .*pass the saved RunState instead, or configure the store it was saved in/,
    );
  });

  it("streams the resumed step: the answer read, the call's result, then the next model call", async () => {
    const { result } = await suspendedRun();
    const resumed = resumingAgent(["approve"]);
    const stream = resumed.agent.resumeStream(stateOf(result));
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      "tool-call",
      "approval-result",
      "tool-result",
      "step-finish",
      "step-start",
      "text-delta",
      "step-finish",
      "finish",
    ]);
    expect(events[1]).toMatchObject({
      stepNumber: 1,
      approval: { outcome: "approved", approvalId: expect.stringMatching(/\.[\w-]{22}$/) },
    });
    expect((await stream.result).status).toBe("completed");
  });

  it("waits instead of suspending when the arguments hold a secret, which a state never keeps", async () => {
    const { tools, deletions } = callbackTools();
    const secret = "cb-token-9f8e7d6c5b4a";
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"], token: secret } }] },
      { text: "deleted" },
    ]);
    const approver = new ScriptedApprover(["approve"]);
    const result = await new Agent({ model, tools, approver }).run("delete", {
      suspendOnApproval: true,
    });
    expect(approver.requests[0]?.context.allowPending).toBe(false);
    expect(result.status).toBe("completed");
    expect(deletions).toEqual([["cb-1"]]);
    expect(JSON.stringify(result.state)).not.toContain(secret);
    expect(JSON.stringify(result.state)).toContain("[redacted]");
  });
});
