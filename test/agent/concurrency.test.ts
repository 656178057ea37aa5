import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { collect, forever, sleep, toolMessages } from "./fixtures.js";

function slowTool() {
  let inFlight = 0;
  const stats = { maxInFlight: 0, finished: [] as number[] };
  const tool = defineTool({
    name: "slow",
    description: "Takes its time.",
    parameters: z.object({ n: z.number(), ms: z.number() }),
    execute: async ({ n, ms }) => {
      inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      await sleep(ms);
      inFlight--;
      stats.finished.push(n);
      return `result ${n}`;
    },
  });
  return { tool, stats };
}

const callsOf = (delays: number[]) => ({
  toolCalls: delays.map((ms, n) => ({ name: "slow", arguments: { n, ms } })),
});

describe("tool calls of one answer", () => {
  it("run concurrently: all four are in flight at once", async () => {
    const { tool, stats } = slowTool();
    const model = new ScriptedModel([callsOf([50, 50, 50, 50]), { text: "done" }]);
    const result = await new Agent({ model, tools: [tool] }).run("go");
    expect(result.status).toBe("completed");
    expect(stats.maxInFlight).toBe(4);
  });

  it("run at most toolConcurrency at a time", async () => {
    const { tool, stats } = slowTool();
    const model = new ScriptedModel([callsOf([50, 50, 50, 50, 50, 50]), { text: "done" }]);
    await new Agent({ model, tools: [tool], toolConcurrency: 2 }).run("go");
    expect(stats.maxInFlight).toBe(2);
    expect(stats.finished).toHaveLength(6);
  });

  it("answer the model in call order, whatever order they finish in", async () => {
    const { tool, stats } = slowTool();
    const model = new ScriptedModel([callsOf([150, 100, 50, 0]), { text: "done" }]);
    const stream = new Agent({ model, tools: [tool] }).stream("go");
    const events = await collect(stream);
    const result = await stream.result;

    expect(stats.finished).toEqual([3, 2, 1, 0]);
    expect(toolMessages(result.messages).map((message) => message.content)).toEqual([
      "result 0",
      "result 1",
      "result 2",
      "result 3",
    ]);
    expect(toolMessages(result.messages).map((message) => message.tool_call_id)).toEqual([
      "call_1_0",
      "call_1_1",
      "call_1_2",
      "call_1_3",
    ]);
    expect(result.steps[0]?.toolCalls.map((record) => record.toolCallId)).toEqual([
      "call_1_0",
      "call_1_1",
      "call_1_2",
      "call_1_3",
    ]);
    // Events report each result as it comes.
    const resultEvents = events.flatMap((event) =>
      event.type === "tool-result" ? [event.toolCall.toolCallId] : [],
    );
    expect(resultEvents).toEqual(["call_1_3", "call_1_2", "call_1_1", "call_1_0"]);
  });
});

describe("a wide fan-out", () => {
  /** Runs `body`, then returns the MaxListenersExceededWarnings the process emitted meanwhile. */
  async function listenerWarnings(body: () => Promise<void>): Promise<string[]> {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === "MaxListenersExceededWarning") warnings.push(warning.message);
    };
    process.on("warning", onWarning);
    try {
      await body();
      // Warnings are emitted on a later tick.
      await sleep(10);
    } finally {
      process.off("warning", onWarning);
    }
    return warnings;
  }

  it.each([
    ["with the caller's signal", () => ({ signal: new AbortController().signal })],
    ["without a signal", () => ({})],
  ])("of 20 concurrent tools draws no listener-leak warning, %s", async (_label, options) => {
    const { tool, stats } = slowTool();
    const model = new ScriptedModel([callsOf(Array(20).fill(30)), { text: "done" }]);
    const agent = new Agent({ model, tools: [tool], toolConcurrency: 20 });
    let status = "";
    const warnings = await listenerWarnings(async () => {
      status = (await agent.run("go", options())).status;
    });
    expect(status).toBe("completed");
    expect(stats.maxInFlight).toBe(20);
    expect(warnings).toEqual([]);
  });

  it("of 12 approvals at once draws no listener-leak warning on the caller's signal", async () => {
    const destroy = defineTool({
      name: "destroy",
      description: "Destroys one item.",
      parameters: z.object({ n: z.number() }),
      needsApproval: true,
      execute: async ({ n }) => `destroyed ${n}`,
    });
    const answers = Array.from({ length: 12 }, () => async (action: { fingerprint: string }) => {
      await sleep(20);
      return { outcome: "approved", fingerprint: action.fingerprint };
    });
    const approver = new ScriptedApprover(answers);
    const model = new ScriptedModel([
      { toolCalls: Array.from({ length: 12 }, (_, n) => ({ name: "destroy", arguments: { n } })) },
      { text: "done" },
    ]);
    const agent = new Agent({ model, tools: [destroy], approver, toolConcurrency: 12 });
    const controller = new AbortController();
    let statuses: string[] = [];
    const warnings = await listenerWarnings(async () => {
      const result = await agent.run("go", { signal: controller.signal });
      statuses = result.steps[0]?.toolCalls.map((call) => call.status) ?? [];
    });
    expect(statuses).toEqual(Array(12).fill("succeeded"));
    expect(warnings).toEqual([]);
  });

  it("still stops every waiting approval when the caller aborts", async () => {
    const destroy = defineTool({
      name: "destroy",
      description: "Destroys one item.",
      parameters: z.object({ n: z.number() }),
      needsApproval: true,
      execute: async ({ n }) => `destroyed ${n}`,
    });
    const signals: AbortSignal[] = [];
    const approver = new ScriptedApprover(
      Array.from({ length: 3 }, () => (_action: unknown, context: { signal: AbortSignal }) => {
        signals.push(context.signal);
        return new Promise(() => {});
      }),
    );
    const model = new ScriptedModel([
      { toolCalls: Array.from({ length: 3 }, (_, n) => ({ name: "destroy", arguments: { n } })) },
      { text: "never" },
    ]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const result = await new Agent({ model, tools: [destroy], approver }).run("go", {
      signal: controller.signal,
    });
    expect(result.status).toBe("aborted");
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true, true]);
    expect(result.steps[0]?.toolCalls.map((call) => call.approval?.outcome)).toEqual([
      "refused",
      "refused",
      "refused",
    ]);
  });

  it("still stops every running tool when the caller aborts", async () => {
    // Tools that ignore their signal and never settle: the run can only
    // resolve by not waiting for them.
    let started = 0;
    const stubborn = defineTool({
      name: "slow",
      description: "Never returns.",
      parameters: z.object({ n: z.number(), ms: z.number() }),
      execute: () => {
        started++;
        return forever();
      },
    });
    const model = new ScriptedModel([callsOf(Array(20).fill(0)), { text: "never" }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const result = await new Agent({ model, tools: [stubborn], toolConcurrency: 20 }).run("go", {
      signal: controller.signal,
    });
    expect(result.status).toBe("aborted");
    expect(started).toBe(20);
    expect(result.steps[0]?.toolCalls.every((call) => call.status === "aborted")).toBe(true);
  });
});
