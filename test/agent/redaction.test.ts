import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { toolMessages } from "./fixtures.js";

const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY2NvdW50In0.c2lnbmF0dXJl";

async function toldAfter(result: unknown) {
  const tool = defineTool({
    name: "fetch_secretly",
    description: "Returns something.",
    parameters: z.object({}),
    execute: () => result,
  });
  const model = new ScriptedModel([{ toolCalls: [{ name: "fetch_secretly" }] }, { text: "ok" }]);
  const run = await new Agent({ model, tools: [tool] }).run("go");
  return { told: toolMessages(model.requests[1]?.messages ?? [])[0]?.content ?? "", run };
}

describe("tool results reach the model without secrets", () => {
  it("redacts secret-named fields and secret-shaped text in objects", async () => {
    const result = {
      callback: { url: "https://shop.example/hook", token: "cb-secret-value" },
      session: { encrypted_token: jwt },
      note: `authorization: Bearer ${jwt}`,
      count: 2,
    };
    const { told, run } = await toldAfter(result);
    expect(JSON.parse(told)).toEqual({
      callback: { url: "https://shop.example/hook", token: "[redacted]" },
      session: { encrypted_token: "[redacted]" },
      note: "authorization: Bearer [redacted]",
      count: 2,
    });
    expect(told).not.toContain("cb-secret-value");
    expect(told).not.toContain("eyJ");
    // The caller's own record keeps the raw result.
    const record = run.steps[0]?.toolCalls[0];
    expect(record?.status === "succeeded" && record.result).toBe(result);
  });

  it("redacts a string result, which is otherwise sent as it is", async () => {
    expect((await toldAfter(`token is ${jwt}, keep it safe`)).told).toBe(
      "token is [redacted], keep it safe",
    );
  });

  it("serializes values through their JSON form", async () => {
    expect((await toldAfter({ at: new Date("2024-01-02T03:04:05Z") })).told).toBe(
      '{"at":"2024-01-02T03:04:05.000Z"}',
    );
    expect((await toldAfter(undefined)).told).toBe("null");
  });

  it("tells the model when a result cannot be JSON", async () => {
    const { told, run } = await toldAfter({ big: 10n });
    const parsed = JSON.parse(told);
    expect(parsed.error).toBe("result_unserializable");
    expect(parsed.message).toMatch(
      /^The tool fetch_secretly ran, but its result could not be turned into JSON/,
    );
    expect(run.status).toBe("completed");
  });
});
