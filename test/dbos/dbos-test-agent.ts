import { z } from "zod";
import type { AgentOptions } from "../../src/agent/agent-options.js";
import type { ModelRequest } from "../../src/agent/model.js";
import { MessagingApprover } from "../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";

/** Where the test agent's services are (the simulators'). */
export interface DbosTestServices {
  ordersUrl: string;
  ordersToken: string;
  messagingUrl: string;
  messagingToken: string;
  approverLinkId: string;
}

/**
 * A model that reads the conversation instead of a fixed order (a process
 * that recovers a run starts with a fresh one): asked to delete callback
 * `<id>`, it calls `delete_callbacks` with it; once the tool answered, it
 * says it is done. A task saying it "cannot be answered" fails the call.
 */
export function conversationModel(): ScriptedModel {
  const step = (request: ModelRequest) => {
    if (request.messages.some((message) => message.role === "tool")) return { text: "Done." };
    const task = request.messages.find((message) => message.role === "user");
    if (String(task?.content).includes("cannot be answered")) {
      throw new Error("the model is out of service");
    }
    const id = String(task?.content ?? "").match(/callback ([0-9a-f-]+)/)?.[1] ?? "none";
    return { toolCalls: [{ name: "delete_callbacks", arguments: { ids: [id] } }] };
  };
  return new ScriptedModel(Array.from({ length: 1_000 }, () => step));
}

/**
 * The options of the test's agent: one destructive tool deleting callbacks
 * in the orders simulator, approved through the messaging simulator.
 * `onCalled` runs once the deletion was answered, before the tool returns
 * (where a process may die, in the fault test); `pendingExpiresInSeconds`
 * is how long a question stays open.
 */
export function dbosTestAgentOptions(
  services: DbosTestServices,
  model: ScriptedModel,
  onCalled?: (ids: readonly string[]) => void,
  pendingExpiresInSeconds?: number,
): AgentOptions {
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
      onCalled?.(ids);
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
    ...(pendingExpiresInSeconds !== undefined ? { pendingExpiresInSeconds } : {}),
  });
  return { model, tools: [deleteCallbacks], approver };
}
