import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { MaxStepsExceededError } from "../../src/agent/errors.js";
import type { ModelMessage } from "../../src/agent/model-message.js";
import { RateLimitError } from "../../src/errors/api-error.js";
import { SwitchyardError } from "../../src/errors/switchyard-error.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { ToolContext } from "../../src/tools/tool.js";
import { addNumbersTool, toolMessages } from "./fixtures.js";

const usage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});

describe("agent.run", () => {
  it("runs tools the model asks for and completes with the final text", async () => {
    const { tool, calls } = addNumbersTool();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers", arguments: { a: 2, b: 3 } }], usage: usage(10, 5) },
      (request) => {
        const last = request.messages.at(-1);
        return {
          text: `The sum is ${last?.role === "tool" ? last.content : "?"}`,
          usage: usage(20, 7),
        };
      },
    ]);
    const agent = new Agent({
      model,
      tools: [tool],
      instructions: "Be exact.",
      requestOptions: {
        model: "oss-120b",
        temperature: 0,
        max_tokens: 500,
      },
    });

    const result = await agent.run("What is 2 + 3?");

    expect(calls).toEqual([{ a: 2, b: 3 }]);
    expect(result.status).toBe("completed");
    expect(result.error).toBeUndefined();
    expect(result.output).toBe('The sum is {"sum":5}');
    expect(result.usage).toEqual({ promptTokens: 30, completionTokens: 12, totalTokens: 42 });
    expect(result.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(result.messages[0]).toEqual({ role: "system", content: "Be exact." });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.finishReason).toBe("tool_calls");
    expect(result.steps[0]?.toolCalls).toEqual([
      expect.objectContaining({
        status: "succeeded",
        toolName: "add_numbers",
        toolCallId: "call_1_0",
        rawArguments: '{"a":2,"b":3}',
        arguments: { a: 2, b: 3 },
        result: { sum: 5 },
        content: '{"sum":5}',
      }),
    ]);

    const [first, second] = model.requests;
    expect(first).toMatchObject({
      model: "oss-120b",
      temperature: 0,
      max_tokens: 500,
    });
    expect(first?.tools).toEqual(agent.toolDefinitions);
    expect(first?.messages).toHaveLength(2);
    expect(second?.messages).toHaveLength(4);
    expect(second?.tools).toBe(first?.tools);
  });

  it("gives tools their context and sends strings as they are", async () => {
    const seen: ToolContext[] = [];
    const echo = defineTool({
      name: "echo",
      description: "Echoes.",
      parameters: z.object({ text: z.string() }),
      execute: ({ text }, context) => {
        seen.push(context);
        return text;
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: 'plain "text"' }, id: "abc" }] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, tools: [echo] }).run("go");
    expect(toolMessages(result.messages)).toEqual([
      { role: "tool", tool_call_id: "abc", content: 'plain "text"' },
    ]);
    expect(seen[0]?.toolCallId).toBe("abc");
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(typeof seen[0]?.logger.info).toBe("function");
  });

  it("continues a conversation given as messages, without changing the caller's array", async () => {
    const input: ModelMessage[] = [
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello" },
      { role: "user", content: "Bye" },
    ];
    const model = new ScriptedModel([{ text: "Goodbye" }]);
    const result = await new Agent({ model }).run(input);
    expect(input).toHaveLength(3);
    expect(result.messages).toHaveLength(4);
    expect(model.requests[0]?.messages).toEqual(input);
    expect(model.requests[0]?.tools).toBeUndefined();
  });

  it("stops at maxSteps with the partial result", async () => {
    const { tool, calls } = addNumbersTool();
    const askAgain = {
      toolCalls: [{ name: "add_numbers", arguments: { a: 1, b: 1 } }],
      text: "still working",
    };
    const model = new ScriptedModel([askAgain, askAgain, askAgain, askAgain]);
    const result = await new Agent({ model, tools: [tool], maxSteps: 5 }).run("loop", {
      maxSteps: 3,
    });

    expect(result.status).toBe("max_steps");
    expect(result.error).toBeInstanceOf(MaxStepsExceededError);
    expect((result.error as MaxStepsExceededError).maxSteps).toBe(3);
    expect(model.requests).toHaveLength(3);
    expect(calls).toHaveLength(3);
    expect(result.steps).toHaveLength(3);
    expect(result.output).toBe("still working");
    // Every tool call has its answer, so the conversation can be continued.
    expect(result.messages.at(-1)?.role).toBe("tool");
  });

  it("resolves with status failed and the model's error, keeping earlier steps", async () => {
    const { tool } = addNumbersTool();
    const rateLimited = new RateLimitError({
      status: 429,
      method: "POST",
      url: "https://reasoner.example/v1",
      headers: new Headers(),
      body: {},
      bodyText: "",
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers", arguments: { a: 1, b: 2 } }], usage: usage(3, 4) },
      { error: rateLimited },
    ]);
    const result = await new Agent({ model, tools: [tool] }).run("go");
    expect(result.status).toBe("failed");
    expect(result.error).toBe(rateLimited);
    expect(result.steps).toHaveLength(1);
    expect(result.usage.totalTokens).toBe(7);
    expect(result.output).toBe("");
  });

  it("fails clearly when the answer has no choices, and when the script runs out", async () => {
    const empty = new ScriptedModel([
      { id: "x", object: "chat.completion", created: 0, model: "m", choices: [] },
    ]);
    const emptyResult = await new Agent({ model: empty }).run("go");
    expect(emptyResult.status).toBe("failed");
    expect(emptyResult.error).toBeInstanceOf(SwitchyardError);
    expect(emptyResult.error?.message).toMatch(/no choices/);

    const exhausted = await new Agent({ model: new ScriptedModel([]) }).run("go");
    expect(exhausted.status).toBe("failed");
    expect(exhausted.error?.message).toMatch(/request 1 came in, but the script has only 0 step/);
  });

  it("counts steps without usage as zero", async () => {
    const { tool } = addNumbersTool();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers", arguments: { a: 1, b: 2 } }] },
      { text: "3", usage: usage(5, 1) },
    ]);
    const result = await new Agent({ model, tools: [tool] }).run("go");
    expect(result.usage).toEqual({ promptTokens: 5, completionTokens: 1, totalTokens: 6 });
    expect(result.steps[0]?.usage).toBeUndefined();
  });
});
