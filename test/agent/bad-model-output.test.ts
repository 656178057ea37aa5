import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import {
  InvalidToolInputError,
  ToolExecutionError,
  ToolTimeoutError,
} from "../../src/agent/errors.js";
import type { ToolCallRecord } from "../../src/agent/run-result.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { addNumbersTool, forever, toolMessages, untilAborted } from "./fixtures.js";

/** Runs one bad call then a final answer; returns what the model was told and the record. */
async function runOneCall(
  step: ScriptedStep,
  agentOptions: Partial<ConstructorParameters<typeof Agent>[0]> = {},
) {
  const { tool, calls } = addNumbersTool();
  const model = new ScriptedModel([step, { text: "recovered" }]);
  const agent = new Agent({ model, tools: [tool], ...agentOptions });
  const result = await agent.run("go");
  expect(result.status).toBe("completed");
  expect(result.output).toBe("recovered");
  const told = toolMessages(model.requests[1]?.messages ?? []);
  expect(told).toHaveLength(1);
  return {
    told: told[0]?.content ?? "",
    record: result.steps[0]?.toolCalls[0] as ToolCallRecord,
    calls,
  };
}

describe("nothing the model sends crashes the run", () => {
  it("reports arguments that are not JSON", async () => {
    const { told, record, calls } = await runOneCall({
      toolCalls: [{ name: "add_numbers", arguments: '{"a": 1, "b":' }],
    });
    expect(calls).toHaveLength(0);
    const parsed = JSON.parse(told);
    expect(parsed).toMatchObject({ error: "invalid_arguments" });
    expect(parsed.message).toMatch(/^The arguments for add_numbers are not valid JSON \(.+\)\./);
    expect(parsed.message).toContain("call again");
    expect(parsed.issues[0]).toMatch(/^\(root\): not valid JSON/);
    expect(record.status).toBe("invalid_arguments");
    if (record.status === "invalid_arguments") {
      expect(record.error).toBeInstanceOf(InvalidToolInputError);
      expect(record.error.issues[0]).toMatch(/^\(root\): not valid JSON/);
    }
  });

  it("reports schema failures in words the model can act on", async () => {
    const { told, record, calls } = await runOneCall({
      toolCalls: [{ name: "add_numbers", arguments: { a: "one", b: 500 } }],
    });
    expect(calls).toHaveLength(0);
    expect(JSON.parse(told)).toEqual({
      error: "invalid_arguments",
      message:
        "Invalid arguments for add_numbers; nothing was run. Fix the arguments listed in issues and call again.",
      issues: [
        "a: Invalid input: expected number, received string",
        "b: Too big: expected number to be <=100",
      ],
    });
    expect(record.status === "invalid_arguments" && record.error.issues).toEqual([
      "a: Invalid input: expected number, received string",
      "b: Too big: expected number to be <=100",
    ]);
    expect(record.arguments).toBeUndefined();
  });

  it("reports an unknown tool with the valid names", async () => {
    const { told, record } = await runOneCall({ toolCalls: [{ name: "multiply", arguments: {} }] });
    expect(JSON.parse(told)).toEqual({
      error: "unknown_tool",
      message:
        'There is no tool named "multiply". Valid tool names: add_numbers. Call one of these, with its exact name.',
      valid_tools: ["add_numbers"],
    });
    expect(record.status).toBe("unknown_tool");
  });

  it("reports a tool that throws, with secrets removed from its message", async () => {
    const failing = defineTool({
      name: "add_numbers",
      description: "Fails.",
      parameters: z.object({}),
      execute: () => {
        throw new TypeError("upstream said: Authorization: Bearer sk-live-1234567890 is invalid");
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers" }] },
      { text: "recovered" },
    ]);
    const result = await new Agent({ model, tools: [failing] }).run("go");
    const told = toolMessages(model.requests[1]?.messages ?? [])[0]?.content;
    expect(JSON.parse(told ?? "")).toEqual({
      error: "tool_failed",
      message:
        "The tool add_numbers failed: TypeError: upstream said: Authorization: Bearer [redacted] is invalid",
    });
    const record = result.steps[0]?.toolCalls[0];
    expect(record?.status).toBe("failed");
    if (record?.status === "failed") {
      expect(record.error).toBeInstanceOf(ToolExecutionError);
      expect(record.error.message).not.toContain("sk-live");
      expect(record.error.cause).toBeInstanceOf(TypeError);
    }
  });

  it("stops a tool that times out, fires its signal and tells the model", async () => {
    let sawAbort = false;
    const slow = defineTool({
      name: "add_numbers",
      description: "Slow.",
      parameters: z.object({}),
      execute: async (_args, { signal }) => {
        signal.addEventListener("abort", () => {
          sawAbort = true;
        });
        return untilAborted(signal);
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers" }] },
      { text: "recovered" },
    ]);
    const result = await new Agent({ model, tools: [slow], toolTimeoutMs: 50 }).run("go");
    expect(sawAbort).toBe(true);
    expect(result.status).toBe("completed");
    const told = JSON.parse(toolMessages(model.requests[1]?.messages ?? [])[0]?.content ?? "");
    expect(told).toMatchObject({ error: "tool_timeout", timeout_ms: 50 });
    expect(told.message).toMatch(
      /^The tool add_numbers did not finish within 50 ms and was stopped\. It may or may not have taken effect/,
    );
    const record = result.steps[0]?.toolCalls[0];
    expect(record?.status).toBe("timed_out");
    if (record?.status === "timed_out") expect(record.error).toBeInstanceOf(ToolTimeoutError);
  });

  it("does not wait for a timed-out tool that ignores its signal", async () => {
    const stubborn = defineTool({
      name: "add_numbers",
      description: "Hangs.",
      parameters: z.object({}),
      execute: forever,
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers" }] },
      { text: "recovered" },
    ]);
    // The tool never settles: the run resolving at all shows it was not awaited.
    const result = await new Agent({ model, tools: [stubborn], toolTimeoutMs: 50 }).run("go");
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("timed_out");
    expect(result.output).toBe("recovered");
  });

  it("handles every problem of one answer and still runs the good call", async () => {
    const { tool, calls } = addNumbersTool();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "nope", arguments: {} },
          { name: "add_numbers", arguments: "not json" },
          { name: "add_numbers", arguments: { a: 1, b: 2 } },
        ],
      },
      { text: "ok" },
    ]);
    const result = await new Agent({ model, tools: [tool] }).run("go");
    expect(result.steps[0]?.toolCalls.map((record) => record.status)).toEqual([
      "unknown_tool",
      "invalid_arguments",
      "succeeded",
    ]);
    expect(calls).toEqual([{ a: 1, b: 2 }]);
  });

  it("repairs tool calls without an id or with object arguments, keeping the conversation consistent", async () => {
    const { tool, calls } = addNumbersTool();
    const model = new ScriptedModel([
      {
        id: "raw",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  type: "function",
                  function: { name: "add_numbers", arguments: { a: 4, b: 5 } },
                } as never,
              ],
            },
          },
        ],
      },
      { text: "9" },
    ]);
    const result = await new Agent({ model, tools: [tool] }).run("go");
    expect(calls).toEqual([{ a: 4, b: 5 }]);
    const assistant = result.messages[1];
    const id = assistant?.role === "assistant" ? assistant.tool_calls?.[0]?.id : undefined;
    expect(id).toBe("call_1_0");
    expect(toolMessages(result.messages)[0]?.tool_call_id).toBe(id);
  });

  it("unwraps arguments encoded as JSON twice", async () => {
    const { record, calls } = await runOneCall({
      toolCalls: [
        { name: "add_numbers", arguments: JSON.stringify(JSON.stringify({ a: 1, b: 2 })) },
      ],
    });
    expect(record.status).toBe("succeeded");
    expect(calls).toEqual([{ a: 1, b: 2 }]);
  });

  it("treats empty arguments as an empty object", async () => {
    const noArguments = defineTool({
      name: "ping",
      description: "Pings.",
      parameters: { type: "object", properties: {} },
      execute: () => "pong",
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "ping", arguments: "" }] },
      { text: "ok" },
    ]);
    const result = await new Agent({ model, tools: [noArguments] }).run("go");
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "succeeded",
      content: "pong",
      arguments: {},
    });
  });
});
