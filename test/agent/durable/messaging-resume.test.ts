import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import { RunNotResumableError } from "../../../src/agent/durable/durable-errors.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { retiredCallbackHost } from "../../../src/simulators/orders/seed-callbacks.js";

import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import {
  toolMessagesById,
  useMessagingAndOrders,
  useTemporaryDirectories,
} from "./durable-helpers.js";

const simulators = useMessagingAndOrders();
const makeDirectory = useTemporaryDirectories();

/**
 * What each process builds from its configuration: real clients over HTTP,
 * a new approver, a new store object on the same directory, and tools that
 * list and delete callbacks in the orders simulator.
 */
function buildAgent(directory: string, model: ScriptedModel): Agent {
  const client = new OrderClient({
    baseUrl: simulators.orders.url,
    token: simulators.orders.token,
    maxRetries: 0,
  });
  const listCallbacks = defineTool({
    name: "list_callbacks",
    description: "Lists the registered callbacks.",
    parameters: z.object({}),
    execute: async (_args, context) => client.listCallbacks({}, { signal: context.signal }),
  });
  const deleteCallbacks = defineTool({
    name: "delete_callbacks",
    description: "Deletes callbacks by id.",
    parameters: z.object({ ids: z.array(z.string()).min(1) }),
    needsApproval: true,
    describeAction: ({ ids }) => ({
      summary: `Delete ${ids.length} callback(s) from the sandbox account.`,
      details: ids,
      irreversible: true,
    }),
    execute: async ({ ids }, context) => client.deleteCallbacks(ids, { signal: context.signal }),
  });
  const approver = new MessagingApprover({
    client: new MessagingClient({
      baseUrl: simulators.messaging.url,
      token: simulators.messaging.token,
      maxRetries: 0,
    }),
    subscriptionLinkId: simulators.messaging.approverLinkId,
    timeoutMs: 5_000,
    pollIntervalMs: 5,
  });
  return new Agent({
    model,
    tools: [listCallbacks, deleteCallbacks],
    approver,
    runStore: new FileRunStore({ directory }),
    instructions: "You keep the order service's callbacks tidy.",
  });
}

function retiredIds(): string[] {
  return simulators.orders
    .callbacks()
    .filter((callback) => callback.url.includes(retiredCallbackHost))
    .map((callback) => callback.id);
}

const questionsSent = () =>
  simulators.messaging.requests.filter(
    (request) => request.method === "POST" && request.path === "/v1/messages",
  ).length;
const deletionsReceived = () =>
  simulators.orders.requests.filter(
    (request) => request.method === "DELETE" && request.path === "/callbacks",
  );

/** Starts the run in a first "process": it asks once and suspends. */
async function suspendCleanup(directory: string) {
  const ids = retiredIds();
  const model = new ScriptedModel([
    { toolCalls: [{ name: "delete_callbacks", arguments: { ids }, id: "call_delete" }] },
  ]);
  const result = await buildAgent(directory, model).run(
    "Delete the callbacks pointing at the old warehouse.",
    { suspendOnApproval: true },
  );
  expect(result.status).toBe("suspended");
  const interactionId = result.state?.pendingCalls[0]?.interactionId ?? "";
  expect(simulators.messaging.interaction(interactionId)?.state).toBe("pending");
  return { ids, runId: result.runId ?? "", interactionId };
}

describe("a durable run with the messaging approver and real services", () => {
  it("suspends after one question, stays suspended without asking again, then deletes once when approved", async () => {
    const directory = await makeDirectory();
    const { ids, runId, interactionId } = await suspendCleanup(directory);
    expect(ids).toHaveLength(4);
    expect(questionsSent()).toBe(1);
    expect(deletionsReceived()).toHaveLength(0);

    const stillWaiting = new ScriptedModel([]);
    const again = await buildAgent(directory, stillWaiting).resume(runId);
    expect(again.status).toBe("suspended");
    expect(questionsSent()).toBe(1);
    expect(stillWaiting.requests).toHaveLength(0);
    expect(deletionsReceived()).toHaveLength(0);

    simulators.messaging.answerInteraction(interactionId, "approve");
    const model = new ScriptedModel([{ text: "Deleted the 4 old warehouse callbacks." }]);
    const final = await buildAgent(directory, model).resume(runId);
    expect(final.status).toBe("completed");
    expect(questionsSent()).toBe(1);
    expect(deletionsReceived()).toHaveLength(1);
    expect(deletionsReceived()[0]?.body).toEqual(ids);
    expect(retiredIds()).toEqual([]);
    const told = toolMessagesById(model.requests[0]?.messages ?? []).call_delete;
    expect(told).toEqual(ids.map((id) => expect.objectContaining({ id, status: "success" })));

    const late = buildAgent(directory, new ScriptedModel([])).resume(runId);
    await expect(late).rejects.toBeInstanceOf(RunNotResumableError);
    expect(deletionsReceived()).toHaveLength(1);
  });

  it("suspends again, approval intact, when the messaging service is down while a resume reads the answer", async () => {
    const directory = await makeDirectory();
    const { ids, runId, interactionId } = await suspendCleanup(directory);
    simulators.messaging.answerInteraction(interactionId, "approve");
    simulators.messaging.failNext({
      method: "GET",
      path: `/v1/interactions/${interactionId}`,
      status: 503,
    });
    const during = new ScriptedModel([]);
    const outage = await buildAgent(directory, during).resume(runId);
    expect(outage.status).toBe("suspended");
    expect(outage.state?.pendingCalls[0]).toMatchObject({ interactionId });
    expect(during.requests).toHaveLength(0);
    expect(deletionsReceived()).toHaveLength(0);

    const model = new ScriptedModel([{ text: "Deleted the 4 old warehouse callbacks." }]);
    const final = await buildAgent(directory, model).resume(runId);
    expect(final.status).toBe("completed");
    expect(questionsSent()).toBe(1);
    expect(deletionsReceived()).toHaveLength(1);
    expect(deletionsReceived()[0]?.body).toEqual(ids);
  });

  it("deletes nothing when the answer read later is a denial, and tells the model", async () => {
    const directory = await makeDirectory();
    const { ids, runId, interactionId } = await suspendCleanup(directory);
    simulators.messaging.answerInteraction(interactionId, "deny", "not during the sale");
    const model = new ScriptedModel([{ text: "Understood, nothing deleted." }]);
    const final = await buildAgent(directory, model).resume(runId);
    expect(final.status).toBe("completed");
    expect(deletionsReceived()).toHaveLength(0);
    expect(retiredIds()).toEqual(ids);
    expect(toolMessagesById(model.requests[0]?.messages ?? []).call_delete).toMatchObject({
      error: "approval_refused",
      code: "denied",
    });
  });
});
