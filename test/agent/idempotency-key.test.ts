import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";

/**
 * A tool whose arguments count how often something turns them into JSON
 * (the idempotency key is a digest of their canonical JSON).
 */
function countingTool(readsKey: boolean) {
  const seen = { serialized: 0, keys: [] as string[] };
  const tool = defineTool({
    name: "send",
    description: "Sends something.",
    parameters: z.object({ text: z.string() }).transform(({ text }) => ({
      text,
      toJSON() {
        seen.serialized++;
        return { text };
      },
    })),
    needsApproval: false,
    execute: async (_args, context) => {
      if (readsKey) seen.keys.push(context.idempotencyKey ?? "", context.idempotencyKey ?? "");
      return "sent";
    },
  });
  return { tool, seen };
}

const oneCall = () =>
  new ScriptedModel([
    { toolCalls: [{ name: "send", arguments: { text: "hello" } }] },
    { text: "done" },
  ]);

describe("a tool's idempotency key", () => {
  it("is made when the tool reads it: one key, the same on every read", async () => {
    const { tool, seen } = countingTool(true);
    const result = await new Agent({ model: oneCall(), tools: [tool] }).run("go");
    expect(result.status).toBe("completed");
    expect(seen.keys[0]).toMatch(/\S/);
    expect(seen.keys[1]).toBe(seen.keys[0]);
    expect(seen.serialized).toBe(1);
  });

  it("is not made for a tool that never reads it: its arguments are not digested", async () => {
    const { tool, seen } = countingTool(false);
    const result = await new Agent({ model: oneCall(), tools: [tool] }).run("go");
    expect(result.status).toBe("completed");
    expect(seen.serialized).toBe(0);
  });
});
