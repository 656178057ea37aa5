import { describe, expect, it, vi } from "vitest";

// Counts the zod 4 conversions the library makes, wherever it makes them:
// the library reaches zod only through loadZod (zod loads on first use).
const conversions = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../src/internal/load-zod.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/internal/load-zod.js")>();
  return {
    loadZod: () => {
      const zod = actual.loadZod();
      return {
        ...zod,
        toJSONSchema: (...args: Parameters<typeof zod.toJSONSchema>) => {
          conversions.count++;
          return zod.toJSONSchema(...args);
        },
      };
    },
  };
});

const { z } = await import("zod");
const { Agent } = await import("../../src/agent/agent.js");
const { defineTool } = await import("../../src/tools/define-tool.js");
const { ScriptedModel } = await import("../../src/testing/index.js");

describe("tool schemas", () => {
  it("are converted once, at definition, however many steps and runs follow", async () => {
    const tool = defineTool({
      name: "count",
      description: "Counts.",
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => n + 1,
    });
    expect(conversions.count).toBe(1);

    const call = { toolCalls: [{ name: "count", arguments: { n: 1 } }] };
    const model = new ScriptedModel([call, call, call, { text: "done" }, call, { text: "again" }]);
    const agent = new Agent({ model, tools: [tool] });
    expect((await agent.run("go")).status).toBe("completed");
    expect((await agent.stream("go").result).status).toBe("completed");

    expect(conversions.count).toBe(1);
    expect(model.requests).toHaveLength(6);
    for (const request of model.requests) {
      expect(request.tools?.[0]?.function.parameters).toBe(tool.parameters);
    }
  });
});
