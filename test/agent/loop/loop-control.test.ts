import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { RunStep, ToolCallRecord } from "../../../src/agent/run-result.js";
import { hasToolCall, stepCountIs } from "../../../src/agent/stop-conditions.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { addNumbersTool, capturingLogger, toolMessages } from "../fixtures.js";

const deletions: string[] = [];
const deleteOrder = defineTool({
  name: "delete_order",
  description: "Deletes an order.",
  parameters: z.object({ id: z.string() }),
  execute: ({ id }) => {
    deletions.push(id);
    return { deleted: id };
  },
});
const fileReport = defineTool({
  name: "file_report",
  description: "Files the report.",
  parameters: z.object({ text: z.string() }),
  execute: () => ({ filed: true }),
});

const offered = (request: { tools?: Array<{ function: { name: string } }> }) =>
  (request.tools ?? []).map((tool) => tool.function.name);

describe("prepareStep", () => {
  it("removes a tool for a step: it is not offered, and a call to it is not run", async () => {
    deletions.length = 0;
    const { tool: addNumbers } = addNumbersTool();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_order", arguments: { id: "o-1" } }] },
      { toolCalls: [{ name: "delete_order", arguments: { id: "o-2" } }] },
      { text: "done" },
    ]);
    const seen: Array<{ stepNumber: number; toolNames: readonly string[]; steps: number }> = [];
    const agent = new Agent({
      model,
      tools: [addNumbers, deleteOrder],
      prepareStep: ({ stepNumber, toolNames, steps }) => {
        seen.push({ stepNumber, toolNames, steps: steps.length });
        return stepNumber === 1 ? { activeTools: ["add_numbers"] } : undefined;
      },
    });
    const result = await agent.run("tidy up");
    expect(offered(model.requests[0]!)).toEqual(["add_numbers"]);
    expect(offered(model.requests[1]!)).toEqual(["add_numbers", "delete_order"]);
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("unknown_tool");
    expect(result.steps[1]?.toolCalls[0]?.status).toBe("succeeded");
    expect(deletions).toEqual(["o-2"]);
    expect(seen).toEqual([
      { stepNumber: 1, toolNames: ["add_numbers", "delete_order"], steps: 0 },
      { stepNumber: 2, toolNames: ["add_numbers", "delete_order"], steps: 1 },
      { stepNumber: 3, toolNames: ["add_numbers", "delete_order"], steps: 2 },
    ]);
  });

  it("changes the request options and the messages of one step only", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers", arguments: { a: 1, b: 1 } }] },
      { text: "2" },
    ]);
    const agent = new Agent({
      model,
      tools: [addNumbersTool().tool],
      instructions: "Be brief.",
      requestOptions: { model: "big-model", temperature: 0.2 },
      prepareStep: ({ stepNumber, messages }) =>
        stepNumber === 2
          ? {
              requestOptions: { model: "small-model" },
              messages: messages.filter((message) => message.role !== "system"),
            }
          : undefined,
    });
    const result = await agent.run("1 + 1?");
    expect(model.requests[0]).toMatchObject({ model: "big-model", temperature: 0.2 });
    expect(model.requests[1]).toMatchObject({ model: "small-model", temperature: 0.2 });
    expect(model.requests[0]?.messages[0]?.role).toBe("system");
    expect(model.requests[1]?.messages.some((message) => message.role === "system")).toBe(false);
    // The run's conversation keeps what prepareStep left out of the request.
    expect(result.messages[0]).toEqual({ role: "system", content: "Be brief." });
  });

  it("fails the run, naming the problem, when it returns a tool the agent lacks or throws", async () => {
    const unknownTool = await new Agent({
      model: new ScriptedModel([{ text: "never" }]),
      tools: [addNumbersTool().tool],
      prepareStep: () => ({ activeTools: ["launch_rockets"] }),
    }).run("go");
    expect(unknownTool.status).toBe("failed");
    expect(unknownTool.error).toBeInstanceOf(ConfigurationError);
    expect(unknownTool.error?.message).toContain("launch_rockets");

    const thrown = new Error("prepareStep broke");
    const throwing = await new Agent({
      model: new ScriptedModel([{ text: "never" }]),
      prepareStep: () => {
        throw thrown;
      },
    }).run("go");
    expect(throwing).toMatchObject({ status: "failed", error: thrown });
  });
});

describe("stopWhen", () => {
  it("hasToolCall ends the run once that tool has run, without another model call", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers", arguments: { a: 1, b: 2 } }] },
      { toolCalls: [{ name: "file_report", arguments: { text: "3" } }] },
      { text: "never asked" },
    ]);
    const result = await new Agent({
      model,
      tools: [addNumbersTool().tool, fileReport],
      stopWhen: hasToolCall("file_report"),
    }).run("add and file");
    expect(result.status).toBe("completed");
    expect(result.error).toBeUndefined();
    expect(model.requests).toHaveLength(2);
    expect(toolMessages(result.messages)).toHaveLength(2);
  });

  it("a call that did not succeed does not count: the model may try again", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "file_report", arguments: { text: 3 } }] },
      { toolCalls: [{ name: "file_report", arguments: { text: "3" } }] },
    ]);
    const result = await new Agent({
      model,
      tools: [fileReport],
      stopWhen: hasToolCall("file_report"),
    }).run("file");
    expect(result.steps.map((step) => step.toolCalls[0]?.status)).toEqual([
      "invalid_arguments",
      "succeeded",
    ]);
    expect(result.status).toBe("completed");
  });

  it("an array means any; a per-run stopWhen replaces the agent's", async () => {
    const looping = () =>
      new ScriptedModel(
        Array.from({ length: 6 }, () => ({
          toolCalls: [{ name: "add_numbers", arguments: { a: 1, b: 1 } }],
        })),
      );
    const agent = new Agent({
      model: looping(),
      tools: [addNumbersTool().tool, fileReport],
      stopWhen: [hasToolCall("file_report"), stepCountIs(2)],
    });
    const result = await agent.run("loop");
    expect(result.status).toBe("completed");
    expect(result.steps).toHaveLength(2);

    const perRun = await new Agent({
      model: looping(),
      tools: [addNumbersTool().tool],
      stopWhen: stepCountIs(5),
    }).run("loop", { stopWhen: stepCountIs(3) });
    expect(perRun.steps).toHaveLength(3);
  });

  it("rejects what is not a condition", () => {
    const model = new ScriptedModel([]);
    expect(
      () =>
        new Agent({ model, stopWhen: "file_report" as unknown as ReturnType<typeof stepCountIs> }),
    ).toThrow(/stopWhen must be a stop condition/);
    expect(() => stepCountIs(0)).toThrow(ConfigurationError);
    expect(() => hasToolCall()).toThrow(ConfigurationError);
  });
});

describe("onStepFinish and onToolCallSettled", () => {
  it("are awaited for each step and each call, in order; what they throw is logged", async () => {
    const order: string[] = [];
    const capture = capturingLogger();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "add_numbers", arguments: { a: 1, b: 2 } },
          { name: "unknown_tool", arguments: {} },
        ],
      },
      { text: "3" },
    ]);
    const settled: ToolCallRecord[] = [];
    const finished: RunStep[] = [];
    const result = await new Agent({
      model,
      tools: [addNumbersTool().tool],
      logger: capture.logger,
      toolConcurrency: 1,
      onToolCallSettled: async (call, { stepNumber }) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`call ${stepNumber} ${call.toolName} ${call.status}`);
        settled.push(call);
      },
      onStepFinish: (step) => {
        order.push(`step ${step.stepNumber}`);
        finished.push(step);
        throw new Error("metrics are down");
      },
    }).run("1 + 2?");
    expect(result.status).toBe("completed");
    expect(order).toEqual([
      "call 1 add_numbers succeeded",
      "call 1 unknown_tool unknown_tool",
      "step 1",
      "step 2",
    ]);
    expect(settled).toEqual(result.steps[0]?.toolCalls);
    expect(finished).toEqual(result.steps);
    const warnings = capture.lines.filter((line) =>
      String(line.msg).includes("onStepFinish threw"),
    );
    expect(warnings).toHaveLength(2);
  });
});
