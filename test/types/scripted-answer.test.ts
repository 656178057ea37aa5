import { ReasonerClient } from "switchyard-agents";
import type { Model, ModelStreamEvent } from "switchyard-agents/model";
import type { ScriptedAnswer as SimulatorAnswer } from "switchyard-agents/simulators";
import { startReasonerSimulator } from "switchyard-agents/simulators";
import { ScriptedModel, type ScriptedAnswer as TestingAnswer } from "switchyard-agents/testing";
import { describe, expect, expectTypeOf, it } from "vitest";

type SimulatorToolCall = NonNullable<SimulatorAnswer["toolCalls"]>[number];
type TestingToolCall = NonNullable<TestingAnswer["toolCalls"]>[number];

/** An answer using every field: text in pieces, reasoning, a call streamed in pieces, usage. */
const answer: TestingAnswer = {
  textPieces: ["Checking ", "the list ", "first."],
  reasoning: "The task names a host.",
  toolCalls: [
    {
      name: "list_callbacks",
      id: "call_list",
      arguments: '{"host": "staging.example.com"}',
      argumentPieces: ['{"ho', 'st": "staging', '.example.com"}'],
    },
  ],
  usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
};

/** What a caller of the model sees: the streamed pieces and the assembled answer. */
async function observe(
  model: Model,
): Promise<{ text: string[]; argumentPieces: string[]; message: unknown; usage: unknown }> {
  const stream = model.stream({
    messages: [{ role: "user", content: "Which callbacks point at staging?" }],
    tools: [
      {
        type: "function",
        function: {
          name: "list_callbacks",
          description: "Lists callbacks",
          parameters: { type: "object", properties: { host: { type: "string" } } },
        },
      },
    ],
  });
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const completion = await stream.finalCompletion();
  const { role, content, tool_calls } = completion.choices[0]!.message;
  return {
    text: events.flatMap((event) => (event.type === "text-delta" ? [event.delta] : [])),
    argumentPieces: events.flatMap((event) =>
      // The client announces a call's name with an empty fragment: it carries no argument text.
      event.type === "tool-call-delta" && event.argumentsDelta !== "" ? [event.argumentsDelta] : [],
    ),
    message: { role, content, tool_calls },
    usage: completion.usage,
  };
}

describe("one ScriptedAnswer shape for switchyard-agents/testing and /simulators", () => {
  it("is the same type under both subpaths", () => {
    expectTypeOf<TestingAnswer>().toEqualTypeOf<SimulatorAnswer>();
    expectTypeOf<TestingToolCall>().toEqualTypeOf<SimulatorToolCall>();
  });

  it("means the same to ScriptedModel and to the reasoner simulator", async () => {
    const simulator = await startReasonerSimulator({ scenario: () => answer });
    try {
      const overHttp = await observe(
        new ReasonerClient({ url: simulator.url, apiKey: simulator.apiKey }),
      );
      const scripted = await observe(new ScriptedModel([answer]));
      const expected = {
        text: ["Checking ", "the list ", "first."],
        argumentPieces: ['{"ho', 'st": "staging', '.example.com"}'],
        message: {
          role: "assistant",
          content: "Checking the list first.",
          tool_calls: [
            {
              id: "call_list",
              type: "function",
              function: { name: "list_callbacks", arguments: '{"host": "staging.example.com"}' },
            },
          ],
        },
        usage: expect.objectContaining({
          prompt_tokens: 11,
          completion_tokens: 7,
          total_tokens: 18,
        }),
      };
      expect(overHttp).toEqual(expected);
      expect(scripted).toEqual(expected);
    } finally {
      await simulator.close();
    }
  });

  it("answers a legacy function_call alike", async () => {
    const legacy: TestingAnswer = {
      toolCalls: [{ name: "get_weather", arguments: { city: "Lyon" } }],
      legacyFunctionCall: true,
    };
    const simulator = await startReasonerSimulator({ scenario: () => legacy });
    try {
      const request = { messages: [{ role: "user" as const, content: "Weather in Lyon?" }] };
      const overHttp = await new ReasonerClient({
        url: simulator.url,
        apiKey: simulator.apiKey,
      }).complete(request);
      const scripted = await new ScriptedModel([legacy]).complete(request);
      for (const completion of [overHttp, scripted]) {
        expect(completion.choices[0]).toMatchObject({
          message: { function_call: { name: "get_weather", arguments: '{"city":"Lyon"}' } },
          finish_reason: "function_call",
        });
        expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
      }
    } finally {
      await simulator.close();
    }
  });

  it("takes a call's argument text from its pieces when it has no arguments, in both", async () => {
    const piecesOnly: TestingAnswer = {
      toolCalls: [{ name: "list_callbacks", argumentPieces: ['{"host": ', '"staging"}'] }],
    };
    const simulator = await startReasonerSimulator({ scenario: () => piecesOnly });
    try {
      const request = { messages: [{ role: "user" as const, content: "List them." }] };
      const overHttp = await new ReasonerClient({
        url: simulator.url,
        apiKey: simulator.apiKey,
      }).complete(request);
      const scripted = await new ScriptedModel([piecesOnly]).complete(request);
      for (const completion of [overHttp, scripted]) {
        expect(completion.choices[0]?.message.tool_calls?.[0]?.function.arguments).toBe(
          '{"host": "staging"}',
        );
      }
    } finally {
      await simulator.close();
    }
  });

  it("refuses a field it does not know, such as content for text, in both", async () => {
    const old = { content: "Done." } as unknown as TestingAnswer;
    const simulator = await startReasonerSimulator({ scenario: () => old });
    try {
      const request = { messages: [{ role: "user" as const, content: "Go." }] };
      await expect(
        new ReasonerClient({
          url: simulator.url,
          apiKey: simulator.apiKey,
          maxRetries: 0,
        }).complete(request),
      ).rejects.toThrow(/a ScriptedAnswer has no field "content"; .*the answer's text is "text"/);
      await expect(new ScriptedModel([old]).complete(request)).rejects.toThrow(
        /^ScriptedModel, request 1: a ScriptedAnswer has no field "content"/,
      );
    } finally {
      await simulator.close();
    }
  });
});
