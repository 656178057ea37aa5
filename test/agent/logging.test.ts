import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { capturingLogger } from "./fixtures.js";

function loggingTool() {
  return defineTool({
    name: "note",
    description: "Logs a line.",
    parameters: z.object({ text: z.string() }),
    execute: ({ text }, context) => {
      context.logger.info({ text }, "tool says");
      return "noted";
    },
  });
}

const twoCalls = () =>
  new ScriptedModel([
    {
      toolCalls: [
        { name: "note", arguments: { text: "first" }, id: "call_a" },
        { name: "note", arguments: { text: "second" }, id: "call_b" },
      ],
    },
    { text: "done" },
  ]);

describe("logging", () => {
  it("gives each tool call a logger bound to the tool and the call", async () => {
    const capture = capturingLogger();
    await new Agent({ model: twoCalls(), tools: [loggingTool()], logger: capture.logger }).run(
      "go",
    );
    const toolLines = capture.lines.filter((line) => line.msg === "tool says");
    expect(toolLines).toEqual([
      expect.objectContaining({
        component: "agent",
        tool: "note",
        toolCallId: "call_a",
        text: "first",
      }),
      expect.objectContaining({
        component: "agent",
        tool: "note",
        toolCallId: "call_b",
        text: "second",
      }),
    ]);
  });

  it("logs each tool call's outcome and the run's end at debug level", async () => {
    const capture = capturingLogger();
    await new Agent({ model: twoCalls(), tools: [loggingTool()], logger: capture.logger }).run(
      "go",
    );
    const debugLines = capture.lines.filter((line) => line.level === 20);
    expect(debugLines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(["tool call succeeded", "run completed"]),
    );
    expect(debugLines.find((line) => line.msg === "tool call succeeded")).toMatchObject({
      tool: "note",
      toolCallId: "call_a",
      status: "succeeded",
    });
    expect(debugLines.find((line) => line.msg === "run completed")).toMatchObject({
      status: "completed",
      steps: 2,
    });
  });

  it("writes no debug line at info level", async () => {
    const raw: string[] = [];
    const logger = pino({ level: "info" }, { write: (chunk: string) => void raw.push(chunk) });
    await new Agent({ model: twoCalls(), tools: [loggingTool()], logger }).run("go");
    const messages = raw.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(["tool says", "tool says"]);
  });

  it("lets a tool replace the logger on its context", async () => {
    const capture = capturingLogger();
    const replacing = defineTool({
      name: "note",
      description: "Logs through its own child.",
      parameters: z.object({ text: z.string() }),
      execute: ({ text }, context) => {
        context.logger = context.logger.child({ step: "inner" });
        context.logger.info({ text }, "tool says");
        return "noted";
      },
    });
    await new Agent({ model: twoCalls(), tools: [replacing], logger: capture.logger }).run("go");
    const toolLines = capture.lines.filter((line) => line.msg === "tool says");
    expect(toolLines[0]).toMatchObject({ tool: "note", toolCallId: "call_a", step: "inner" });
  });
});
