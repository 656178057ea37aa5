import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import { ToolTimeoutError } from "../../../src/agent/errors.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { sleep, toolMessages, untilAborted } from "../fixtures.js";

/** A tool that finishes after `delayMs`, or when its signal fires. */
function waitingTool(name: string, delayMs: number, timeoutMs?: number) {
  return defineTool({
    name,
    description: `Waits ${delayMs} ms.`,
    parameters: z.object({}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    execute: async (_args, { signal }) => {
      await Promise.race([sleep(delayMs), untilAborted(signal)]);
      return "finished";
    },
  });
}

const callBoth = () =>
  new ScriptedModel([
    {
      toolCalls: [
        { name: "slow_export", id: "call_slow" },
        { name: "patient", id: "call_patient" },
      ],
    },
    { text: "done" },
  ]);

describe("a tool's own timeoutMs", () => {
  it("stops a slow tool by its own limit while the agent-wide one lets others finish", async () => {
    const result = await new Agent({
      model: callBoth(),
      tools: [waitingTool("slow_export", 60_000, 30), waitingTool("patient", 60)],
      toolTimeoutMs: 60_000,
    }).run("go");
    const [slow, patient] = result.steps[0]!.toolCalls;
    expect(slow?.status).toBe("timed_out");
    const error = slow?.status === "timed_out" ? slow.error : undefined;
    expect(error).toBeInstanceOf(ToolTimeoutError);
    expect(error?.timeoutMs).toBe(30);
    expect(error?.message).toContain("timeoutMs");
    expect(patient?.status).toBe("succeeded");
    const told = JSON.parse(toolMessages(result.messages)[0]!.content) as Record<string, unknown>;
    expect(told).toMatchObject({ error: "tool_timeout", timeout_ms: 30 });
  });

  it("may be longer than the agent-wide limit", async () => {
    const result = await new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "slow_export" }] }, { text: "done" }]),
      tools: [waitingTool("slow_export", 60, 60_000)],
      toolTimeoutMs: 10,
    }).run("go");
    expect(result.steps[0]!.toolCalls[0]?.status).toBe("succeeded");
  });

  it("must be a whole number of milliseconds", () => {
    for (const timeoutMs of [0, -5, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => waitingTool("bad", 1, timeoutMs)).toThrow(ConfigurationError);
    }
    expect(() => waitingTool("bad", 1, 0)).toThrow(/timeoutMs must be a whole number/);
    const handMade = { ...waitingTool("hand_made", 1), timeoutMs: "soon" as unknown as number };
    expect(() => new Agent({ model: new ScriptedModel([]), tools: [handMade] })).toThrow(
      /tool "hand_made" timeoutMs must be/,
    );
  });
});
