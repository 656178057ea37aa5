import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { AbortedError } from "../../src/errors/transport-errors.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { collect, forever, toolMessages, untilAborted } from "./fixtures.js";

// The model and the tools here never settle on their own (`forever()`): a run
// that resolves at all did not wait for them. No test measures time.

function hangingTool(behaviour: "honours signal" | "ignores signal") {
  const seen = { started: 0, signalFired: false };
  const tool = defineTool({
    name: "hang",
    description: "Never finishes by itself.",
    parameters: z.object({}),
    execute: (_args, { signal }) => {
      seen.started++;
      signal.addEventListener("abort", () => {
        seen.signalFired = true;
      });
      return behaviour === "honours signal" ? untilAborted(signal) : forever();
    },
  });
  return { tool, seen };
}

describe("aborting a run", () => {
  it("during a model call: the request's signal fires and the run resolves aborted", async () => {
    const controller = new AbortController();
    let requestSignal: AbortSignal | undefined;
    const model = new ScriptedModel([
      (_request, { signal }) => {
        requestSignal = signal;
        setTimeout(() => controller.abort(), 20);
        return forever();
      },
    ]);
    const result = await new Agent({ model }).run("go", { signal: controller.signal });
    expect(requestSignal?.aborted).toBe(true);
    expect(result.status).toBe("aborted");
    expect(result.error).toBeInstanceOf(AbortedError);
    expect(result.steps).toEqual([]);
    expect(result.messages).toHaveLength(1);
  });

  it("during a streamed model call", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([
      () => {
        setTimeout(() => controller.abort(), 20);
        return forever();
      },
    ]);
    const stream = new Agent({ model }).stream("go", { signal: controller.signal });
    const events = await collect(stream);
    const result = await stream.result;
    expect(result.status).toBe("aborted");
    expect(events.map((event) => event.type)).toEqual(["step-start", "finish"]);
  });

  it.each(["honours signal", "ignores signal"] as const)(
    "during a tool that %s: its signal fires and the run ends without waiting for it",
    async (behaviour) => {
      const controller = new AbortController();
      const { tool, seen } = hangingTool(behaviour);
      const model = new ScriptedModel([
        { toolCalls: [{ name: "hang" }, { name: "hang" }] },
        { text: "never" },
      ]);
      setTimeout(() => controller.abort(), 50);
      const result = await new Agent({ model, tools: [tool] }).run("go", {
        signal: controller.signal,
      });
      expect(seen).toEqual({ started: 2, signalFired: true });
      expect(result.status).toBe("aborted");
      expect(result.error).toBeInstanceOf(AbortedError);
      expect(model.requests).toHaveLength(1);
      expect(result.steps[0]?.toolCalls.map((record) => record.status)).toEqual([
        "aborted",
        "aborted",
      ]);
      // Every call still has its tool message, so the conversation stays valid.
      expect(toolMessages(result.messages)).toHaveLength(2);
    },
  );

  it("during an approval: the approver's signal fires and the tool never runs", async () => {
    const controller = new AbortController();
    let approvalSignal: AbortSignal | undefined;
    let executed = false;
    const destroy = defineTool({
      name: "destroy",
      description: "Destroys.",
      parameters: z.object({}),
      needsApproval: true,
      execute: () => {
        executed = true;
      },
    });
    const approver = new ScriptedApprover([
      (_action, context) => {
        approvalSignal = context.signal;
        setTimeout(() => controller.abort(), 20);
        return forever();
      },
    ]);
    const model = new ScriptedModel([{ toolCalls: [{ name: "destroy" }] }]);
    const result = await new Agent({ model, tools: [destroy], approver }).run("go", {
      signal: controller.signal,
    });
    expect(approvalSignal?.aborted).toBe(true);
    expect(executed).toBe(false);
    expect(result.status).toBe("aborted");
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "aborted",
      approval: { outcome: "refused", code: "aborted" },
    });
  });

  it("before it starts: no model call is made", async () => {
    const model = new ScriptedModel([{ text: "unused" }]);
    const result = await new Agent({ model }).run("go", { signal: AbortSignal.abort() });
    expect(result.status).toBe("aborted");
    expect(model.requests).toHaveLength(0);
  });
});
