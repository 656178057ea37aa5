import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { ModelResponse } from "../../src/agent/model.js";
import type { ModelMessage } from "../../src/agent/model-message.js";
import { ReasonerClient } from "../../src/clients/reasoner/reasoner-client.js";
import type { ReasonerSimulator } from "../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../src/simulators/reasoner/start-reasoner-simulator.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { callbackTools } from "./durable/durable-helpers.js";
import { collect } from "./fixtures.js";

// An answer in the legacy form (`function_call`, from before `tool_calls`)
// is run as a tool call and answered with a `function` message, as the
// chat-completions convention has it; it is not an empty completion.

function weatherTool() {
  const calls: unknown[] = [];
  const tool = defineTool({
    name: "get_weather",
    description: "Current weather of a city.",
    parameters: z.object({ city: z.string() }),
    execute: (args) => {
      calls.push(args);
      return { city: args.city, sky: "sunny" };
    },
  });
  return { tool, calls };
}

const legacyAnswer = (argumentsValue: unknown): ModelResponse => ({
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: null,
        function_call: { name: "get_weather", arguments: argumentsValue as string },
      },
      finish_reason: "function_call",
    },
  ],
});

const lastMessage = (messages: readonly ModelMessage[]) => messages.at(-1);

describe("legacy function_call answers, scripted model", () => {
  it("run the call and send its result back as a function message", async () => {
    const { tool, calls } = weatherTool();
    const model = new ScriptedModel([
      legacyAnswer('{"city":"Lyon"}'),
      (request) => {
        const last = lastMessage(request.messages);
        return { text: last?.role === "function" ? `Weather: ${last.content}` : "no result" };
      },
    ]);

    const result = await new Agent({ model, tools: [tool] }).run("Weather in Lyon?");

    expect(calls).toEqual([{ city: "Lyon" }]);
    expect(result.status).toBe("completed");
    expect(result.output).toBe('Weather: {"city":"Lyon","sky":"sunny"}');
    expect(result.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "function",
      "assistant",
    ]);
    expect(result.messages[1]).toEqual({
      role: "assistant",
      content: null,
      function_call: { name: "get_weather", arguments: '{"city":"Lyon"}' },
    });
    expect(result.messages[2]).toEqual({
      role: "function",
      name: "get_weather",
      content: '{"city":"Lyon","sky":"sunny"}',
    });
    expect(result.steps[0]?.toolCalls).toEqual([
      expect.objectContaining({
        status: "succeeded",
        toolName: "get_weather",
        toolCallId: "function_call",
        arguments: { city: "Lyon" },
      }),
    ]);
  });

  it("re-encode arguments sent as an object, and stream the same run", async () => {
    const { tool, calls } = weatherTool();
    const model = new ScriptedModel([legacyAnswer({ city: "Zürich" }), { text: "Done." }]);
    const stream = new Agent({ model, tools: [tool] }).stream("Weather in Zürich?");
    const events = await collect(stream);
    const result = await stream.result;

    expect(calls).toEqual([{ city: "Zürich" }]);
    expect(result.status).toBe("completed");
    expect(events.filter((event) => event.type === "tool-call")).toEqual([
      expect.objectContaining({ toolName: "get_weather", toolCallId: "function_call" }),
    ]);
  });

  it("tell the model what was wrong with bad arguments, in a function message", async () => {
    const { tool, calls } = weatherTool();
    const model = new ScriptedModel([legacyAnswer('{"town":"Lyon"}'), { text: "Sorry." }]);
    const result = await new Agent({ model, tools: [tool] }).run("Weather?");

    expect(calls).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("invalid_arguments");
    const answer = result.messages[2];
    expect(answer).toMatchObject({ role: "function", name: "get_weather" });
    expect(answer?.role === "function" ? answer.content : "").toContain("city");
  });
});

describe("a legacy function_call waiting for approval", () => {
  it("suspends with the call pending and, resumed from its state, answers with a function message", async () => {
    const { tools, deletions } = callbackTools();
    const suspended = await new Agent({
      model: new ScriptedModel([
        {
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: null,
                function_call: { name: "delete_callbacks", arguments: '{"ids":["cb-1"]}' },
              },
              finish_reason: "function_call",
            },
          ],
        },
      ]),
      tools,
      approver: new ScriptedApprover(["pending"]),
    }).run("delete cb-1", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    expect(suspended.state?.pendingCalls).toEqual([
      expect.objectContaining({ toolCallId: "function_call", phase: "awaiting_approval" }),
    ]);

    const model = new ScriptedModel([{ text: "deleted" }]);
    const resumed = await new Agent({
      model,
      tools,
      approver: new ScriptedApprover([], { checks: ["approve"] }),
    }).resume(suspended.state!);

    expect(resumed.status).toBe("completed");
    expect(deletions).toEqual([["cb-1"]]);
    expect(model.requests[0]?.messages.at(-1)).toEqual({
      role: "function",
      name: "delete_callbacks",
      content: '{"deleted":1}',
    });
  });
});

describe("legacy function_call answers, reasoner simulator", () => {
  let simulator: ReasonerSimulator;
  beforeAll(async () => {
    simulator = await startReasonerSimulator({
      scenario: (request) => {
        const last = request.messages.at(-1);
        return last?.role === "function"
          ? { text: `It is ${JSON.parse(last.content ?? "{}").sky} in ${last.name}'s city.` }
          : {
              toolCalls: [{ name: "get_weather", arguments: { city: "Lyon" } }],
              legacyFunctionCall: true,
            };
      },
    });
  });
  afterAll(() => simulator.close());

  it.each(["run", "stream"] as const)("run over HTTP (%s)", async (mode) => {
    const { tool, calls } = weatherTool();
    const agent = new Agent({
      model: new ReasonerClient({ url: simulator.url, apiKey: simulator.apiKey }),
      tools: [tool],
    });
    const result =
      mode === "run"
        ? await agent.run("Weather in Lyon?")
        : await agent.stream("Weather in Lyon?").result;

    expect(result.error).toBeUndefined();
    expect(calls).toEqual([{ city: "Lyon" }]);
    expect(result.status).toBe("completed");
    expect(result.output).toBe("It is sunny in get_weather's city.");
    expect(result.steps[0]?.finishReason).toBe("function_call");
    expect(result.messages[1]).toMatchObject({
      role: "assistant",
      function_call: { name: "get_weather", arguments: '{"city":"Lyon"}' },
    });
    expect(result.messages[2]).toMatchObject({ role: "function", name: "get_weather" });
  });
});
