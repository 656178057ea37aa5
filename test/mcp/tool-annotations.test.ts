import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MessagingClient } from "../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { toolAnnotations } from "../../src/mcp/tool-annotations.js";
import { type OrdersSimulator, startOrdersSimulator } from "../../src/simulators/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { messagingTools } from "../../src/tools/messaging/messaging-tools.js";
import { orderTools } from "../../src/tools/orders/order-tools.js";
import type { AnyTool } from "../../src/tools/tool.js";

let orders: OrdersSimulator;
let orderClient: OrderClient;

beforeAll(async () => {
  orders = await startOrdersSimulator();
  orderClient = new OrderClient({ baseUrl: orders.url, token: orders.token });
});

afterAll(() => orders.close());

const messagingClient = new MessagingClient({ baseUrl: "https://messaging.example.com" });

function annotationsOf(tools: readonly AnyTool[], name: string) {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return toolAnnotations(tool);
}

describe("toolAnnotations: the tool's facts, not an approval decision", () => {
  it("announces a destructive tool as destructive even when approval of it is turned off", () => {
    const tools = orderTools(orderClient, { runWithoutApproval: ["cancel_orders"] });
    expect(annotationsOf(tools, "cancel_orders")).toMatchObject({ destructiveHint: true });
    // A question added to an additive tool does not make it destructive.
    const asking = orderTools(orderClient, { needsApproval: { create_orders: true } });
    expect(annotationsOf(asking, "create_orders")).toMatchObject({ destructiveHint: false });
  });

  it("follows destructive where the tool declares it, and its default question where it does not", () => {
    const messaging = messagingTools(messagingClient);
    expect(annotationsOf(messaging, "cancel_message")).toMatchObject({ destructiveHint: true });
    expect(annotationsOf(messaging, "send_notification")).toMatchObject({
      destructiveHint: false,
    });
    const own = (needsApproval: boolean) =>
      defineTool({
        name: "archive",
        description: "Archives a record.",
        parameters: z.object({ id: z.string() }),
        needsApproval,
        execute: () => null,
      });
    expect(toolAnnotations(own(true))).toMatchObject({ destructiveHint: true });
    expect(toolAnnotations(own(false))).toMatchObject({ destructiveHint: false });
  });
});
