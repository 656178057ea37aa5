import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../../src/simulators/index.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { orderTools } from "../../../src/tools/orders/order-tools.js";
import { callbackTools, useTemporaryDirectories } from "../durable/durable-helpers.js";

const temporaryDirectory = useTemporaryDirectories();

function stateOf(result: { state?: RunState }): RunState {
  if (!result.state) throw new Error("the result has no state");
  return result.state;
}

describe("failures other agent libraries shipped, that this one must not", () => {
  it("a declined call never runs after a resume", async () => {
    const runStore = new FileRunStore({ directory: await temporaryDirectory() });
    const { tools } = callbackTools();
    const first = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_1" }] },
      ]),
      tools,
      approver: new ScriptedApprover(["pending"]),
      runStore,
    });
    const suspended = await first.run("delete cb-1", { suspendOnApproval: true });
    const later = callbackTools();
    const approver = new ScriptedApprover([], { checks: ["deny", "approve"] });
    const resumed = new Agent({
      model: new ScriptedModel([{ text: "done" }, { text: "done" }]),
      tools: later.tools,
      approver,
      runStore,
    });
    const final = await resumed.resume(suspended.runId!);
    expect(final.status).toBe("completed");
    // A second resume finds the run ended; the approval asked for later is never read.
    await expect(resumed.resume(suspended.runId!)).rejects.toThrow(/already ended/);
    expect(later.deletions).toEqual([]);
    expect(approver.checkRequests).toHaveLength(1);
  });
});

describe("parallel calls against the simulators", () => {
  let orders: OrdersSimulator;
  let messaging: MessagingSimulator;

  beforeAll(async () => {
    orders = await startOrdersSimulator();
    messaging = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
  });
  afterAll(() => Promise.all([orders.close(), messaging.close()]));
  beforeEach(() => {
    orders.reset();
    messaging.reset();
  });

  it("an approval of another run's question about the same action never approves this run's call", async () => {
    const approver = () =>
      new MessagingApprover({
        client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
        subscriptionLinkId: messaging.approverLinkId,
        pollIntervalMs: 5,
        maxPollIntervalMs: 10,
      });
    const suspendedRun = async () => {
      const agent = new Agent({
        model: new ScriptedModel([
          { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_1" }] },
        ]),
        tools: callbackTools().tools,
        approver: approver(),
      });
      const result = await agent.run("delete cb-1", { suspendOnApproval: true });
      expect(result.status).toBe("suspended");
      return stateOf(result);
    };
    const older = await suspendedRun();
    const current = await suspendedRun();
    const [olderQuestion, currentQuestion] = messaging.interactions();
    // The same action, word for word, asked twice: the person approves the older question only.
    expect(messaging.message(olderQuestion!.message_id)?.text).toBe(
      messaging.message(currentQuestion!.message_id)?.text,
    );
    messaging.answerInteraction(olderQuestion!.interaction_id, "approve");

    const resume = async (state: RunState) => {
      const tools = callbackTools();
      const agent = new Agent({
        model: new ScriptedModel([{ text: "done" }]),
        tools: tools.tools,
        approver: approver(),
      });
      return { result: await agent.resume(state), deletions: tools.deletions };
    };
    const stillWaiting = await resume(current);
    expect(stillWaiting.result.status).toBe("suspended");
    expect(stillWaiting.deletions).toEqual([]);
    const approved = await resume(older);
    expect(approved.result.status).toBe("completed");
    expect(approved.deletions).toEqual([["cb-1"]]);
  });

  it("never share a question id when parallel calls are asked in one question", async () => {
    const ids = orders
      .callbacks()
      .slice(0, 3)
      .map((callback) => callback.id);
    const agent = new Agent({
      model: new ScriptedModel([
        {
          toolCalls: ids.map((id) => ({
            name: "delete_callbacks",
            arguments: { callback_ids: [id] },
          })),
        },
        { text: "done" },
      ]),
      tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
      approver: new MessagingApprover({
        client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
        subscriptionLinkId: messaging.approverLinkId,
        pollIntervalMs: 5,
        maxPollIntervalMs: 10,
      }),
    });
    const running = agent.run("delete three callbacks");
    while (messaging.interactions().length < 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    messaging.answerInteraction(messaging.interactions()[0]!.interaction_id, "approve_some", "3");
    const result = await running;

    // One question names every call; each call's answer is its own, by its own approval id.
    const [question] = messaging.interactions();
    const approvals = result.steps[0]?.toolCalls.map((call) => call.approval);
    expect(messaging.interactions()).toHaveLength(1);
    expect(new Set(approvals?.map((approval) => approval?.approvalId)).size).toBe(3);
    for (const approval of approvals ?? []) {
      expect(approval?.interactionId).toBe(question!.interaction_id);
    }
    expect(result.steps[0]?.toolCalls.map((call) => call.status)).toEqual([
      "refused",
      "refused",
      "succeeded",
    ]);
    expect(orders.callbacks().map((callback) => callback.id)).not.toContain(ids[2]);
  });
});
