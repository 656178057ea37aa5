import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/agent-events.js";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import type { ApprovalAction } from "../../src/agent/approver.js";
import { BudgetExhaustedError } from "../../src/agent/run-budget.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { actionFingerprint } from "../../src/internal/canonical-json.js";
import { type ScriptedApproval, ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { addNumbersTool, toolMessages } from "./fixtures.js";

const add = (a: number, b: number) => ({ name: "add_numbers", arguments: { a, b } });
const usage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});

/** A script where each step asks for `perStep` additions, then answers. */
function addingModel(steps: number, perStep = 1, tokensPerStep?: [number, number]) {
  return new ScriptedModel([
    ...Array.from({ length: steps }, (_, step) => ({
      toolCalls: Array.from({ length: perStep }, (_, index) => add(step, index)),
      ...(tokensPerStep ? { usage: usage(...tokensPerStep) } : {}),
    })),
    { text: "done", ...(tokensPerStep ? { usage: usage(...tokensPerStep) } : {}) },
  ]);
}

const expire: ScriptedApproval = (action: ApprovalAction) => ({
  outcome: "expired",
  reason: "nobody answered within 10 minutes",
  interactionId: `interaction-${action.toolCallId}`,
});

describe("a run's budget", () => {
  it("stops at the tool-call budget: calls beyond it do not run, and the model is told why", async () => {
    const { tool, calls } = addNumbersTool();
    const model = addingModel(3, 2);
    const agent = new Agent({ model, tools: [tool], budget: { maxToolCalls: 3 } });
    const result = await agent.run("add");

    expect(result.status).toBe("budget_exhausted");
    expect(result.error).toBeInstanceOf(BudgetExhaustedError);
    expect(result.error).toMatchObject({ limit: "toolCalls", max: 3, used: 3 });
    expect(result.error?.message).toContain("budget of 3 tool calls");
    // Step 1 ran both; step 2 ran the third call; its fourth did not run.
    expect(calls).toEqual([
      { a: 0, b: 0 },
      { a: 0, b: 1 },
      { a: 1, b: 0 },
    ]);
    expect(result.steps.map((step) => step.toolCalls.map((call) => call.status))).toEqual([
      ["succeeded", "succeeded"],
      ["succeeded", "refused"],
    ]);
    const told = JSON.parse(toolMessages(result.messages).at(-1)?.content ?? "");
    expect(told).toMatchObject({ error: "budget_exhausted" });
    expect(told.message).toContain("budget of 3 tool call(s) is spent");
    // The run stopped before asking the model again.
    expect(model.requests).toHaveLength(2);
  });

  it("a run's own budget replaces the agent's", async () => {
    const { tool, calls } = addNumbersTool();
    const agent = new Agent({
      model: addingModel(3),
      tools: [tool],
      budget: { maxToolCalls: 1 },
    });
    const result = await agent.run("add", { budget: { maxToolCalls: 5 } });
    expect(result.status).toBe("completed");
    expect(calls).toHaveLength(3);
  });

  it("stops at the token budget (input + output) before the next model call", async () => {
    const { tool, calls } = addNumbersTool();
    const model = addingModel(5, 1, [300, 100]);
    const agent = new Agent({ model, tools: [tool], budget: { maxTokens: 1000 } });
    const result = await agent.run("add");

    expect(result.status).toBe("budget_exhausted");
    expect(result.error).toMatchObject({ limit: "tokens", max: 1000, used: 1200 });
    // 400 tokens per model call: the third crosses the budget; its calls still ran.
    expect(model.requests).toHaveLength(3);
    expect(calls).toHaveLength(3);
    expect(result.usage).toMatchObject({ promptTokens: 900, completionTokens: 300 });
  });

  it("refuses a malformed budget with a clear error", () => {
    const { tool } = addNumbersTool();
    const make = (budget: unknown) =>
      new Agent({ model: addingModel(1), tools: [tool], budget: budget as never });
    expect(() => make({ maxToolCalls: -1 })).toThrow(/budget.maxToolCalls must be a whole number/);
    expect(() => make({ maxToolCalls: 5, onExhausted: "ask" })).toThrow(/needs extendBy.toolCalls/);
    expect(() => make({ maxTokens: 5, onExhausted: "maybe" })).toThrow(ConfigurationError);
    expect(() => make({ maxCalls: 5 })).toThrow(/unknown field "maxCalls"/);
  });
});

describe("a budget a person can extend", () => {
  const askBudget = {
    maxToolCalls: 2,
    onExhausted: "ask" as const,
    extendBy: { toolCalls: 2 },
  };

  /** Runs `steps` additions, one per step, under `askBudget`, keeping the audit records. */
  async function runAsking(approver: ScriptedApprover, steps: number) {
    const { tool, calls } = addNumbersTool();
    const audit: ApprovalAuditRecord[] = [];
    const agent = new Agent({
      model: addingModel(steps),
      tools: [tool],
      approver,
      budget: askBudget,
      onApprovalDecided: (record) => void audit.push(record),
    });
    const result = await agent.run("add");
    return { result, calls, audit };
  }

  it("asks for exactly the extension, and goes on after an approval", async () => {
    const approver = new ScriptedApprover(["approve"]);
    const { result, calls, audit } = await runAsking(approver, 4);

    expect(result.status).toBe("completed");
    expect(calls).toHaveLength(4);
    expect(approver.requests).toHaveLength(1);
    const { action } = approver.requests[0] ?? {};
    expect(action?.toolName).toBe("extend_run_budget");
    expect(action?.description.summary).toBe("Allow 2 more tool calls in this run.");
    expect(action?.arguments).toMatchObject({ extension: 1, moreToolCalls: 2, moreTokens: 0 });
    expect(audit).toEqual([
      expect.objectContaining({
        action: "extend_run_budget",
        outcome: "approved",
        decidedBy: "person",
        fingerprint: action?.fingerprint,
      }),
    ]);
  });

  it("says what the agent wants to do next: the calls beyond the budget, as JSON, secrets redacted", async () => {
    const { tool } = addNumbersTool();
    const approver = new ScriptedApprover(["deny"]);
    const events: AgentEvent[] = [];
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [add(1, 2), add(3, 4), add(5, 6)] },
        { text: "done" },
      ]),
      tools: [tool],
      approver,
      budget: askBudget,
    });
    const stream = agent.stream("add");
    for await (const event of stream) events.push(event as AgentEvent);

    const { action } = approver.requests[0] ?? {};
    expect(action?.description.details).toContainEqual({
      label: "next, if extended: this tool call (JSON)",
      text: '{"tool":"add_numbers","arguments":{"a":5,"b":6}}',
      writtenByAgent: true,
    });
    // The question and its answer are events, as a tool call's are.
    const asked = events.filter(
      (event) => event.type === "approval-request" || event.type === "approval-result",
    );
    expect(asked).toEqual([
      expect.objectContaining({
        type: "approval-request",
        stepNumber: 1,
        toolCallId: "budget-extension-1",
        action,
      }),
      expect.objectContaining({
        type: "approval-result",
        stepNumber: 1,
        toolCallId: "budget-extension-1",
        toolName: "extend_run_budget",
        approval: expect.objectContaining({ outcome: "refused", code: "denied" }),
      }),
    ]);
  });

  it("redacts a secret in the arguments of the calls it shows", async () => {
    const echo = defineTool({
      name: "send_note",
      description: "Sends a note.",
      parameters: z.object({ text: z.string(), token: z.string() }),
      execute: async () => ({ sent: true }),
    });
    const approver = new ScriptedApprover(["deny"]);
    const agent = new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [{ name: "send_note", arguments: { text: "hi", token: "sk-live-123456789" } }],
        },
        { text: "done" },
      ]),
      tools: [echo],
      approver,
      budget: { maxToolCalls: 0, onExhausted: "ask", extendBy: { toolCalls: 1 } },
    });
    await agent.run("note");
    const shown = JSON.stringify(approver.requests[0]?.action.description);
    expect(shown).toContain("send_note");
    expect(shown).toContain('\\"arguments\\":{\\"text\\":\\"hi\\",\\"token\\":\\"[redacted]\\"}');
    expect(shown).not.toContain("sk-live-123456789");
  });

  it("states tool calls and tokens together, with thousands separated", async () => {
    const { tool } = addNumbersTool();
    const approver = new ScriptedApprover(["deny"]);
    const agent = new Agent({
      model: addingModel(3, 1, [30_000, 20_000]),
      tools: [tool],
      approver,
      budget: {
        maxToolCalls: 10,
        maxTokens: 50_000,
        onExhausted: "ask",
        extendBy: { toolCalls: 10, tokens: 50_000 },
      },
    });
    const result = await agent.run("add");
    expect(approver.requests[0]?.action.description.summary).toBe(
      "Allow 10 more tool calls and 50,000 more tokens in this run.",
    );
    expect(result.status).toBe("budget_exhausted");
    expect(result.error?.message).toContain("the extension was not approved (denied");
  });

  it("stops after a denial: the calls beyond the budget never run", async () => {
    const approver = new ScriptedApprover(["deny"]);
    const { result, calls, audit } = await runAsking(approver, 4);

    expect(result.status).toBe("budget_exhausted");
    expect(calls).toHaveLength(2);
    expect(audit).toEqual([
      expect.objectContaining({ action: "extend_run_budget", outcome: "refused", code: "denied" }),
    ]);
  });

  it("stops on expiry, recorded as an expiry and not as a denial", async () => {
    const approver = new ScriptedApprover([expire]);
    const { result, calls, audit } = await runAsking(approver, 4);

    expect(result.status).toBe("budget_exhausted");
    expect(result.error?.message).toContain("nobody answered the question to extend it");
    expect(calls).toHaveLength(2);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ outcome: "expired", decidedBy: "expiry" });
    expect(audit[0]?.code).toBeUndefined();
  });

  it("stops when the approver fails or no approver is configured", async () => {
    const failing = new ScriptedApprover([
      () => {
        throw new Error("messaging service down");
      },
    ]);
    for (const approver of [failing, undefined]) {
      const { tool, calls } = addNumbersTool();
      const agent = new Agent({
        model: addingModel(4),
        tools: [tool],
        approver,
        budget: askBudget,
      });
      const result = await agent.run("add");
      expect(result.status).toBe("budget_exhausted");
      expect(calls).toHaveLength(2);
    }
  });

  it("an approval of one extension cannot be replayed for the next: its fingerprint differs", async () => {
    let first: { fingerprint: string; interactionId: string } | undefined;
    const approver = new ScriptedApprover([
      (action: ApprovalAction) => {
        first = { fingerprint: action.fingerprint, interactionId: "interaction-1" };
        return { outcome: "approved", ...first };
      },
      // The first answer, sent again for the second question.
      () => ({ outcome: "approved", ...first }),
    ]);
    const { result, calls, audit } = await runAsking(approver, 6);

    expect(approver.requests).toHaveLength(2);
    const [one, two] = approver.requests.map((request) => request.action);
    expect(two?.arguments).toMatchObject({ extension: 2 });
    expect(two?.fingerprint).not.toBe(one?.fingerprint);
    expect(result.status).toBe("budget_exhausted");
    expect(calls).toHaveLength(4);
    expect(audit.map((record) => [record.outcome, record.code])).toEqual([
      ["approved", undefined],
      ["refused", "fingerprint_mismatch"],
    ]);
  });

  it("an extension the person changed before approving is refused, not granted as asked", async () => {
    const approver = new ScriptedApprover([
      // "Approve with changes": one more call instead of two.
      (action: ApprovalAction) => {
        const edit = { ...(action.arguments as object), moreToolCalls: 1 };
        return {
          outcome: "approved",
          fingerprint: actionFingerprint(action.toolName, edit, action.target),
          interactionId: "interaction-1",
          editedArguments: edit,
        };
      },
    ]);
    const { result, calls, audit } = await runAsking(approver, 4);

    expect(result.status).toBe("budget_exhausted");
    expect(calls).toHaveLength(2);
    expect(result.error?.message).toContain("the extension was not approved (invalid_edit");
    expect(audit.map((record) => [record.outcome, record.code])).toEqual([
      ["refused", "invalid_edit"],
    ]);
  });

  it("two runs' first extensions have different fingerprints", async () => {
    const fingerprints: string[] = [];
    for (let run = 0; run < 2; run++) {
      const { tool } = addNumbersTool();
      const approver = new ScriptedApprover(["deny"]);
      const agent = new Agent({
        model: addingModel(4),
        tools: [tool],
        approver,
        budget: askBudget,
      });
      await agent.run("add");
      fingerprints.push(approver.requests[0]?.action.fingerprint ?? "");
    }
    expect(fingerprints[0]).not.toBe(fingerprints[1]);
  });

  it("asks to extend the token budget before the next model call", async () => {
    const { tool, calls } = addNumbersTool();
    const approver = new ScriptedApprover(["approve", "deny"]);
    const model = addingModel(6, 1, [300, 100]);
    const agent = new Agent({
      model,
      tools: [tool],
      approver,
      budget: { maxTokens: 800, onExhausted: "ask", extendBy: { tokens: 800 } },
    });
    const result = await agent.run("add");
    expect(approver.requests.map((request) => request.action.description.summary)).toEqual([
      "Allow 800 more tokens in this run.",
      "Allow 800 more tokens in this run.",
    ]);
    expect(result.status).toBe("budget_exhausted");
    expect(result.error).toMatchObject({ limit: "tokens", max: 1600, used: 1600 });
    expect(model.requests).toHaveLength(4);
    expect(calls).toHaveLength(4);
  });
});

describe("a budget across suspend and resume", () => {
  function gatedTool() {
    const executions: unknown[] = [];
    const tool = defineTool({
      name: "delete_callback",
      description: "Deletes a callback.",
      parameters: z.object({ id: z.string() }),
      needsApproval: true,
      execute: (args) => {
        executions.push(args);
        return { deleted: args.id };
      },
    });
    return { tool, executions };
  }

  it("a resumed run keeps its count: it does not get a fresh budget", async () => {
    const { tool: adder, calls } = addNumbersTool();
    const { tool: deleter, executions } = gatedTool();
    const script = () =>
      new ScriptedModel([
        { toolCalls: [add(1, 1), add(1, 2)] },
        { toolCalls: [{ name: "delete_callback", arguments: { id: "cb_1" } }] },
        { toolCalls: [add(2, 1), add(2, 2)] },
        { text: "done" },
      ]);
    const approver = new ScriptedApprover(["pending"], { checks: ["approve"] });
    const options = {
      tools: [adder, deleter],
      approver,
      budget: { maxToolCalls: 4 },
    };
    const first = await new Agent({ model: script(), ...options }).run("go", {
      suspendOnApproval: true,
    });
    expect(first.status).toBe("suspended");
    expect(first.state?.budget).toMatchObject({ maxToolCalls: 4, toolCalls: 3 });

    // A new process: the model goes on from step 3.
    const rest = new ScriptedModel([{ toolCalls: [add(2, 1), add(2, 2)] }, { text: "done" }]);
    const resumed = await new Agent({ model: rest, ...options }).resume(
      first.state as NonNullable<typeof first.state>,
    );
    expect(executions).toEqual([{ id: "cb_1" }]);
    expect(resumed.status).toBe("budget_exhausted");
    expect(resumed.error).toMatchObject({ limit: "toolCalls", max: 4, used: 4 });
    // 2 + 1 before, 1 of the 2 after.
    expect(calls).toHaveLength(3);
    expect(resumed.state?.budget).toMatchObject({ toolCalls: 4 });
    expect(resumed.state?.status).toBe("budget_exhausted");
  });

  it("a resume may give new limits; what was spent still counts", async () => {
    const { tool: adder, calls } = addNumbersTool();
    const { tool: deleter } = gatedTool();
    const approver = new ScriptedApprover(["pending"], { checks: ["approve"] });
    const options = { tools: [adder, deleter], approver, budget: { maxToolCalls: 4 } };
    const first = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [add(1, 1), add(1, 2)] },
        { toolCalls: [{ name: "delete_callback", arguments: { id: "cb_1" } }] },
      ]),
      ...options,
    }).run("go", { suspendOnApproval: true });
    const rest = new ScriptedModel([
      { toolCalls: [add(2, 1), add(2, 2), add(2, 3)] },
      { text: "done" },
    ]);
    const resumed = await new Agent({ model: rest, ...options }).resume(
      first.state as NonNullable<typeof first.state>,
      { budget: { maxToolCalls: 5 } },
    );
    expect(resumed.status).toBe("budget_exhausted");
    expect(resumed.error).toMatchObject({ max: 5, used: 5 });
    expect(calls).toHaveLength(4);
  });

  it("a resume whose limit is below what was spent runs none of the calls asked for, and records each", async () => {
    const { tool: adder, calls } = addNumbersTool();
    const { tool: deleter } = gatedTool();
    const approver = new ScriptedApprover(["pending"], { checks: ["approve"] });
    const options = { tools: [adder, deleter], approver, budget: { maxToolCalls: 4 } };
    const first = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [add(1, 1), add(1, 2)] },
        { toolCalls: [{ name: "delete_callback", arguments: { id: "cb_1" } }] },
      ]),
      ...options,
    }).run("go", { suspendOnApproval: true });
    const rest = new ScriptedModel([
      { toolCalls: [add(2, 1), add(2, 2), add(2, 3)] },
      { text: "done" },
    ]);
    const resumed = await new Agent({ model: rest, ...options }).resume(
      first.state as NonNullable<typeof first.state>,
      { budget: { maxToolCalls: 1 } },
    );
    expect(resumed.status).toBe("budget_exhausted");
    expect(calls).toHaveLength(2);
    const last = resumed.steps.at(-1)?.toolCalls ?? [];
    expect(last.map((call) => call.status)).toEqual(["refused", "refused", "refused"]);
  });
});
