import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { Agent } from "../src/agent/agent.js";
import type { AgentOptions } from "../src/agent/agent-options.js";
import type { RunStore } from "../src/agent/durable/run-store.js";
import type { Model } from "../src/agent/model.js";
import { MessagingApprover } from "../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../src/clients/orders/order-client.js";
import { ScriptedModel, type ScriptedStep } from "../src/testing/index.js";
import { defineTool } from "../src/tools/define-tool.js";

/** Where the fleet's services are, as a worker process reads them from its environment. */
export interface FleetServices {
  ordersUrl: string;
  ordersToken: string;
  messagingUrl: string;
  messagingToken: string;
  approverLinkId: string;
}

/** The fleet's services, as the simulators running them give them. */
export function fleetServicesOf(
  orders: { url: string; token: string },
  messaging: { url: string; token: string | undefined; approverLinkId: string },
): FleetServices {
  return {
    ordersUrl: orders.url,
    ordersToken: orders.token,
    messagingUrl: messaging.url,
    messagingToken: messaging.token ?? "",
    approverLinkId: messaging.approverLinkId,
  };
}

/** Options of {@link buildFleetAgent}. */
export interface FleetAgentOptions {
  /** The model's script. @default an answer ending the run, 20,000 times */
  steps?: ScriptedStep[];
  /**
   * How long the tool takes after its request was answered (so a worker
   * killed mid-call has most likely sent it). @default 0
   */
  afterCallMs?: number;
  /** Called when the tool starts, after its start record, before its request (a test may stall there). */
  onCalling?: ((ids: readonly string[]) => void) | undefined;
  /**
   * Called once the deletion request was answered, before the tool returns
   * (the fleet test's worker may die there: a kill during the call).
   */
  onCalled?: ((ids: readonly string[]) => void) | undefined;
  /** The model; `steps` is then not read. @default a ScriptedModel of `steps` */
  model?: Model | undefined;
  /**
   * The tool's timeout: also how long after its holder stopped acting a
   * call cut short waits before it is reconciled. @default the agent's (60 s)
   */
  toolTimeoutMs?: number | undefined;
  /** How long a question stays open (`MessagingApprover` `pendingExpiresInSeconds`). @default its default */
  pendingExpiresInSeconds?: number | undefined;
}

/**
 * The agent every process of a fleet builds (the fleet test and the fleet
 * figure): one destructive tool that deletes callbacks in the orders
 * simulator, approved through the messaging simulator.
 */
export function buildFleetAgent(
  services: FleetServices,
  runStore: RunStore,
  options: FleetAgentOptions = {},
): Agent {
  return new Agent({ ...fleetAgentOptions(services, options), runStore });
}

/**
 * The fleet agent's model, tool and approver, for an agent built elsewhere
 * (DBOS builds its own from options). Its `delete_callbacks` reconciles a
 * call cut short: the ids the service still lists are deleted then.
 */
export function fleetAgentOptions(
  services: FleetServices,
  options: FleetAgentOptions = {},
): Pick<AgentOptions, "model" | "tools" | "approver"> {
  const steps = options.steps ?? Array.from({ length: 20_000 }, () => ({ text: "Done." }));
  const afterCallMs = options.afterCallMs ?? 0;
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
    ...(options.toolTimeoutMs !== undefined ? { timeoutMs: options.toolTimeoutMs } : {}),
    describeAction: ({ ids }) => ({
      summary: `Delete ${ids.length} callback(s).`,
      details: ids,
      irreversible: true,
    }),
    execute: async ({ ids }, context) => {
      options.onCalling?.(ids);
      const results = await orders.deleteCallbacks(ids, { signal: context.signal });
      options.onCalled?.(ids);
      if (afterCallMs > 0) await sleep(afterCallMs);
      return results;
    },
    // A call cut after its start record: the ids still listed are deleted now (deletion by id is idempotent).
    reconcile: async ({ ids }, { signal }) => {
      const listed = new Set(
        (await orders.listCallbacks({ messageType: "all" }, { signal })).map(({ id }) => id),
      );
      const remaining = ids.filter((id) => listed.has(id));
      const results =
        remaining.length > 0 ? await orders.deleteCallbacks(remaining, { signal }) : [];
      return {
        result: results,
        summary: `${ids.length - remaining.length} of ${ids.length} already gone; ${remaining.length} deleted now`,
      };
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
    ...(options.pendingExpiresInSeconds !== undefined
      ? { pendingExpiresInSeconds: options.pendingExpiresInSeconds }
      : {}),
  });
  return { model: options.model ?? new ScriptedModel(steps), tools: [deleteCallbacks], approver };
}
