import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ToolTimeoutError } from "../../src/agent/errors.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { ToolContext } from "../../src/tools/tool.js";
import { sleep } from "./fixtures.js";

/** A tool that looks at its signal only after `delayMs`, and reports what it saw. */
function lateReader(delayMs: number) {
  let report: (seen: { aborted: boolean; reason: unknown; same: boolean }) => void = () => {};
  const seen = new Promise<{ aborted: boolean; reason: unknown; same: boolean }>((resolve) => {
    report = resolve;
  });
  const tool = defineTool({
    name: "late",
    description: "Reads its signal late.",
    parameters: z.object({}),
    execute: async (_args, context: ToolContext) => {
      await sleep(delayMs);
      const signal = context.signal;
      report({ aborted: signal.aborted, reason: signal.reason, same: context.signal === signal });
      return "finished";
    },
  });
  return { tool, seen };
}

const oneCall = () => new ScriptedModel([{ toolCalls: [{ name: "late" }] }, { text: "done" }]);

describe("a tool's signal", () => {
  it("read only after the timeout, has fired with the timeout as its reason", async () => {
    const { tool, seen } = lateReader(80);
    const result = await new Agent({ model: oneCall(), tools: [tool], toolTimeoutMs: 20 }).run(
      "go",
    );
    const record = result.steps[0]?.toolCalls[0];
    expect(record?.status).toBe("timed_out");
    const observed = await seen;
    expect(observed.aborted).toBe(true);
    expect(observed.same).toBe(true);
    expect(observed.reason).toBeInstanceOf(ToolTimeoutError);
    expect(record?.status === "timed_out" && record.error).toBe(observed.reason);
  });

  it("read only after the caller's abort, has fired with the caller's reason", async () => {
    const { tool, seen } = lateReader(80);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("caller stopped")), 20);
    const result = await new Agent({ model: oneCall(), tools: [tool] }).run("go", {
      signal: controller.signal,
    });
    expect(result.status).toBe("aborted");
    const observed = await seen;
    expect(observed.aborted).toBe(true);
    expect(observed.reason).toBe(controller.signal.reason);
  });

  it("read by a tool that ends in time, has not fired", async () => {
    const { tool, seen } = lateReader(5);
    const result = await new Agent({ model: oneCall(), tools: [tool] }).run("go");
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("succeeded");
    expect(await seen).toMatchObject({ aborted: false, reason: undefined, same: true });
  });
});
