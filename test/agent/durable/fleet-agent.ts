import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import { MessagingApprover } from "../../../src/agent/approval/messaging-approver.js";
import type { RunStore } from "../../../src/agent/durable/run-store.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { ScriptedModel, type ScriptedStep } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";

/** Where the fleet's services are, as a worker process reads them from its environment. */
export interface FleetServices {
  ordersUrl: string;
  ordersToken: string;
  messagingUrl: string;
  messagingToken: string;
  approverLinkId: string;
}

/**
 * The agent every process of the fleet builds: one destructive tool that
 * deletes callbacks in the orders simulator (and then takes a moment, so a
 * worker killed mid-run has sent its request), approved through the
 * messaging simulator. `steps` is the model's script.
 */
export function buildFleetAgent(
  services: FleetServices,
  runStore: RunStore,
  steps: ScriptedStep[] = Array.from({ length: 20_000 }, () => ({ text: "Done." })),
): Agent {
  const orders = new OrderClient({
    baseUrl: services.ordersUrl,
    token: services.ordersToken,
    maxRetries: 0,
  });
  const deleteCallbacks = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks by id.",
    parameters: z.object({ ids: z.array(z.string()).min(1) }),
    needsApproval: true,
    describeAction: ({ ids }) => ({
      summary: `Delete ${ids.length} callback(s).`,
      details: ids,
      irreversible: true,
    }),
    execute: async ({ ids }, context) => {
      const results = await orders.deleteCallbacks(ids, { signal: context.signal });
      await sleep(20);
      return results;
    },
  });
  const approver = new MessagingApprover({
    client: new MessagingClient({
      baseUrl: services.messagingUrl,
      token: services.messagingToken,
      maxRetries: 0,
    }),
    subscriptionLinkId: services.approverLinkId,
    timeoutMs: 10_000,
    pollIntervalMs: 5,
  });
  return new Agent({
    model: new ScriptedModel(steps),
    tools: [deleteCallbacks],
    approver,
    runStore,
  });
}
