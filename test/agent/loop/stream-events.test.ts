import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { AgentEvent } from "../../../src/agent/agent-events.js";
import { ReasonerClient } from "../../../src/clients/reasoner/reasoner-client.js";
import { readConversation } from "../../../src/simulators/reasoner/read-conversation.js";
import type { ReasonerSimulator } from "../../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../../src/simulators/reasoner/start-reasoner-simulator.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { addNumbersTool, collect } from "../fixtures.js";

type EventOf<Type extends AgentEvent["type"]> = Extract<AgentEvent, { type: Type }>;
const ofType = <Type extends AgentEvent["type"]>(events: AgentEvent[], type: Type) =>
  events.filter((event): event is EventOf<Type> => event.type === type);

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => ({ word, found: true }),
});

let simulator: ReasonerSimulator;
beforeAll(async () => {
  // Streams the first call's arguments in exact pieces, then answers.
  simulator = await startReasonerSimulator({
    scenario: (request) =>
      readConversation(request).steps.length === 0
        ? {
            toolCalls: [
              {
                name: "lookup",
                id: "call_lookup",
                arguments: '{"word": "switchyard"}',
                argumentPieces: ['{"wo', 'rd": "swi', 'tchyard"}'],
              },
            ],
          }
        : { text: "found it" },
  });
});
afterAll(() => simulator.close());

describe("stream events", () => {
  it("step-start opens each model call, before its deltas", async () => {
    const stream = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "add_numbers", arguments: { a: 1, b: 2 } }] },
        { text: "3" },
      ]),
      tools: [addNumbersTool().tool],
    }).stream("1 + 2?");
    const events = await collect(stream);
    const starts = events.flatMap((event, index) => (event.type === "step-start" ? [index] : []));
    expect(starts.map((index) => events[index])).toEqual([
      { type: "step-start", stepNumber: 1 },
      { type: "step-start", stepNumber: 2 },
    ]);
    expect(events[0]?.type).toBe("step-start");
    // Step 2 starts after step 1 finished.
    const firstFinish = events.findIndex((event) => event.type === "step-finish");
    expect(starts[1]).toBeGreaterThan(firstFinish);
  });

  it("tool-call-delta pieces join to the arguments of the one tool-call that follows (scripted model)", async () => {
    const events = await collect(
      new Agent({
        model: new ScriptedModel([
          { toolCalls: [{ name: "add_numbers", arguments: { a: 20, b: 22 } }] },
          { text: "42" },
        ]),
        tools: [addNumbersTool().tool],
      }).stream("20 + 22?"),
    );
    const deltas = ofType(events, "tool-call-delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((delta) => delta.toolCallId === "call_1_0")).toBe(true);
    expect(deltas.map((delta) => delta.argumentsDelta).join("")).toBe('{"a":20,"b":22}');
    const calls = ofType(events, "tool-call");
    expect(calls).toHaveLength(1);
    expect(events.indexOf(deltas.at(-1)!)).toBeLessThan(events.indexOf(calls[0]!));
  });

  it("tool-call-delta follows the pieces the reasoning service streams, ", async () => {
    const model = new ReasonerClient({ url: simulator.url, apiKey: simulator.apiKey });
    const agent = new Agent({ model, tools: [lookup] });
    const stream = agent.stream("Look up switchyard");
    const events = await collect(stream);
    const deltas = ofType(events, "tool-call-delta");
    // The first announces the call by name, before any argument text.
    expect(deltas.map((delta) => delta.argumentsDelta)).toEqual([
      "",
      '{"wo',
      'rd": "swi',
      'tchyard"}',
    ]);
    expect(deltas[0]).toMatchObject({
      stepNumber: 1,
      toolCallIndex: 0,
      toolCallId: "call_lookup",
      toolName: "lookup",
    });
    expect(ofType(events, "tool-call")).toEqual([
      {
        type: "tool-call",
        stepNumber: 1,
        toolCallId: "call_lookup",
        toolName: "lookup",
        rawArguments: '{"word": "switchyard"}',
      },
    ]);
    expect((await stream.result).output).toBe("found it");
  });
});
