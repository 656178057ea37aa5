import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { AgentEvent } from "../../src/agent/agent-events.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { addNumbersTool, collect } from "./fixtures.js";

const script: ScriptedStep[] = [
  {
    reasoning: "The user wants a sum.",
    text: "Let me add them.",
    toolCalls: [{ name: "add_numbers", arguments: { a: 2, b: 3 } }],
    usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
  },
  { text: "The sum is 5.", usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } },
];

/** Event types with runs of the same type collapsed: deltas come in many pieces. */
const shape = (events: AgentEvent[]) =>
  events.map((event) => event.type).filter((type, index, types) => type !== types[index - 1]);

describe("agent.stream", () => {
  it("yields the run's events in order and ends with finish", async () => {
    const stream = new Agent({
      model: new ScriptedModel(script),
      tools: [addNumbersTool().tool],
    }).stream("2 + 3?");
    const events = await collect(stream);
    expect(shape(events)).toEqual([
      "step-start",
      "reasoning-delta",
      "text-delta",
      "tool-call-delta",
      "tool-call",
      "tool-result",
      "step-finish",
      "step-start",
      "text-delta",
      "step-finish",
      "finish",
    ]);
    const textOf = (stepNumber: number, type: "text-delta" | "reasoning-delta") =>
      events
        .map((event) => (event.type === type && event.stepNumber === stepNumber ? event.delta : ""))
        .join("");
    expect(textOf(1, "reasoning-delta")).toBe("The user wants a sum.");
    expect(textOf(1, "text-delta")).toBe("Let me add them.");
    expect(textOf(2, "text-delta")).toBe("The sum is 5.");
    expect(events.filter((event) => event.type === "text-delta").length).toBeGreaterThan(2);

    const toolCall = events.find((event) => event.type === "tool-call");
    expect(toolCall).toEqual({
      type: "tool-call",
      stepNumber: 1,
      toolCallId: "call_1_0",
      toolName: "add_numbers",
      rawArguments: '{"a":2,"b":3}',
    });
    const finish = events.at(-1);
    const result = await stream.result;
    expect(finish?.type === "finish" && finish.result).toBe(result);
  });

  it("resolves to the same result as run()", async () => {
    const streamed = await new Agent({
      model: new ScriptedModel(script),
      tools: [addNumbersTool().tool],
    }).stream("2 + 3?").result;
    const ran = await new Agent({
      model: new ScriptedModel(script),
      tools: [addNumbersTool().tool],
    }).run("2 + 3?");
    // Each run has its own id, and its state says when it was saved.
    const { runId: _streamedId, state: streamedState, ...streamedRest } = streamed;
    const { runId: _ranId, state: ranState, ...ranRest } = ran;
    expect(streamedRest).toEqual(ranRest);
    expect(streamedState?.messages).toEqual(ranState?.messages);
    expect(streamed.status).toBe("completed");
    expect(streamed.output).toBe("The sum is 5.");
    expect(streamed.usage.totalTokens).toBe(39);
  });

  it("runs to the end whether or not anyone iterates", async () => {
    const model = new ScriptedModel(script);
    const stream = new Agent({ model, tools: [addNumbersTool().tool] }).stream("2 + 3?");
    expect((await stream.result).status).toBe("completed");
    expect(model.requests).toHaveLength(2);
    // The events were kept for a late reader.
    expect(shape(await collect(stream)).at(-1)).toBe("finish");
  });

  it("can be iterated once", async () => {
    const stream = new Agent({
      model: new ScriptedModel(script),
      tools: [addNumbersTool().tool],
    }).stream("2 + 3?");
    await collect(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(ConfigurationError);
  });

  it("lets the reader leave early while the run goes on", async () => {
    const stream = new Agent({
      model: new ScriptedModel(script),
      tools: [addNumbersTool().tool],
    }).stream("2 + 3?");
    for await (const event of stream) {
      if (event.type === "tool-call") break;
    }
    expect((await stream.result).status).toBe("completed");
  });

  it("ends with finish when the model fails", async () => {
    const failure = new Error("service unavailable");
    const stream = new Agent({ model: new ScriptedModel([{ error: failure }]) }).stream("hi");
    const events = await collect(stream);
    expect(events.map((event) => event.type)).toEqual(["step-start", "finish"]);
    expect(await stream.result).toMatchObject({ status: "failed", error: failure });
  });
});
