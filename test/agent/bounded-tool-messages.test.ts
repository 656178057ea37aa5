import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { orderTools } from "../../src/tools/orders/order-tools.js";
import { toolMessages } from "./fixtures.js";

const fiveMegabytes = 5 * 1024 * 1024;
const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJl";

describe("what reaches the model from a tool is bounded", () => {
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    // A broken service: one order whose note is 5 MB.
    const body = JSON.stringify({
      limit: 25,
      offset: 0,
      list_type: "summary",
      data: [{ order_id: "A-1001", status: "open", note: "n".repeat(fiveMegabytes) }],
    });
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/acme/api/v1/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("cuts a 5 MB field of a service answer, saying how much was left out and how to page", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "list_orders", arguments: {} }] },
      { text: "done" },
    ]);
    const tools = orderTools(new OrderClient({ baseUrl, token }));
    const result = await new Agent({ model, tools }).run("List the orders.");

    expect(result.status).toBe("completed");
    const told = toolMessages(model.requests[1]?.messages ?? [])[0]?.content ?? "";
    expect(told.length).toBeLessThanOrEqual(32_000);
    expect(told.startsWith('{"items":[{"order_id":"A-1001"')).toBe(true);
    const leftOut = Number(/the last (\d+) were left out/.exec(told)?.[1]);
    expect(leftOut).toBeGreaterThan(fiveMegabytes - 32_000);
    expect(told).toContain("call list_orders again with its paging parameters (limit, offset)");
    // The caller's own record keeps the whole answer.
    const record = result.steps[0]?.toolCalls[0];
    expect(record?.status === "succeeded" && JSON.stringify(record.result).length).toBeGreaterThan(
      fiveMegabytes,
    );
  });

  it("cuts a long tool error to the agent's maxToolResultChars", async () => {
    const failing = defineTool({
      name: "explode",
      description: "Fails with a long message.",
      parameters: z.object({}),
      execute: () => {
        throw new Error("e".repeat(100_000));
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "explode", arguments: {} }] },
      { text: "done" },
    ]);
    await new Agent({ model, tools: [failing], maxToolResultChars: 2_000 }).run("go");
    const told = toolMessages(model.requests[1]?.messages ?? [])[0]?.content ?? "";
    expect(told.length).toBeLessThanOrEqual(2_000);
    expect(told).toMatch(/^\{"error":"tool_failed"/);
    expect(told).toContain("call explode again with narrower arguments");
  });
});
