import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { collect, sleep, toolMessages } from "./fixtures.js";

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
  it("run concurrently: four 200 ms tools take well under the serial 800 ms", async () => {
    const { tool, stats } = slowTool();
    const model = new ScriptedModel([callsOf([200, 200, 200, 200]), { text: "done" }]);
    const started = Date.now();
    const result = await new Agent({ model, tools: [tool] }).run("go");
    const elapsed = Date.now() - started;
    expect(result.status).toBe("completed");
    expect(stats.maxInFlight).toBe(4);
    expect(elapsed).toBeLessThan(600);
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
