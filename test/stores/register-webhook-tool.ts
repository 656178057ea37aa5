import { z } from "zod";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { AnyTool } from "../../src/tools/tool.js";

/**
 * `register_webhook`, a tool of a user's own that is not idempotent: each
 * request registers a callback for order events at the orders service (or is
 * refused as a duplicate). It reconciles a call cut short: a url already
 * listed took effect; otherwise it is registered now.
 */
export function registerWebhookTool(
  services: { ordersUrl: string; ordersToken: string },
  timeoutMs: number,
): AnyTool {
  const orders = new OrderClient({
    baseUrl: services.ordersUrl,
    token: services.ordersToken,
    maxRetries: 0,
  });
  return defineTool({
    name: "register_webhook",
    description: "Registers a webhook for order events.",
    parameters: z.object({ url: z.string() }),
    needsApproval: true,
    timeoutMs,
    describeAction: ({ url }) => ({ summary: `Register ${url}.` }),
    execute: async ({ url }, { signal }) =>
      orders.createCallbacks([{ url, message_type: "orderEvent" }], { signal }),
    reconcile: async ({ url }, { signal }) => {
      const listed = await orders.listCallbacks({ messageType: "all" }, { signal });
      const found = listed.filter((callback) => callback.url === url);
      if (found.length > 0) return { result: found, summary: "it was registered" };
      const created = await orders.createCallbacks([{ url, message_type: "orderEvent" }], {
        signal,
      });
      return { result: created, summary: "it was not registered; registered now" };
    },
  }) as AnyTool;
}
