import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { Approver } from "../../../src/agent/approver.js";
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
  it("a late answer to an older question never approves the call asked about now", async () => {
    const { tools } = callbackTools();
    const first = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_new" }] },
      ]),
      tools,
      approver: new ScriptedApprover(["pending"]),
    });
    const suspended = await first.run("delete cb-1", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");

    // The approver reads an approval with the right fingerprint, but from an
    // older question about the same action.
    const later = callbackTools();
    const resumed = new Agent({
      model: new ScriptedModel([{ text: "done" }]),
      tools: later.tools,
      approver: new ScriptedApprover([], {
        checks: [
          ({ pending }) => ({
            outcome: "approved",
            fingerprint: pending.fingerprint,
            interactionId: "interaction-of-an-older-question",
          }),
        ],
      }),
    });
    const final = await resumed.resume(stateOf(suspended));
    expect(later.deletions).toEqual([]);
    expect(final.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "fingerprint_mismatch" },
    });
  });

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

  it("never share a question id, and one answered call never waits for the others (approvers asked item by item)", async () => {
    const ids = orders
      .callbacks()
      .slice(0, 3)
      .map((callback) => callback.id);
    const agent = new Agent({
      model: new ScriptedModel([
        {
          toolCalls: ids.map((id, index) => ({
            name: "delete_callbacks",
            arguments: { callback_ids: [id] },
            id: `call_${index + 1}`,
          })),
        },
        { text: "done" },
      ]),
      tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
      approver: itemByItem(
        new MessagingApprover({
          client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
          subscriptionLinkId: messaging.approverLinkId,
          pollIntervalMs: 5,
          maxPollIntervalMs: 10,
        }),
      ),
    });
    const running = agent.run("delete three callbacks");
    while (messaging.interactions().length < 3)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const questions = messaging.interactions();
    expect(new Set(questions.map((question) => question.interaction_id)).size).toBe(3);
    const questionFor = (id: string) =>
      questions.find(
        (question) =>
          messaging.message(question.message_id)?.metadata?.tool_call_id ===
          `call_${ids.indexOf(id) + 1}`,
      )!;

    // The third is approved while the first two are still open: it runs at once.
    messaging.answerInteraction(questionFor(ids[2]!).interaction_id, "approve");
    const deletions = () =>
      orders.requests.filter(
        (request) => request.method === "DELETE" && request.path.endsWith("/callbacks"),
      );
    while (deletions().length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(messaging.interaction(questionFor(ids[0]!).interaction_id)?.state).toBe("pending");
    expect(messaging.interaction(questionFor(ids[1]!).interaction_id)?.state).toBe("pending");

    messaging.answerInteraction(questionFor(ids[0]!).interaction_id, "deny");
    messaging.expireInteraction(questionFor(ids[1]!).interaction_id);
    const result = await running;
    expect(result.steps[0]?.toolCalls.map((call) => call.status)).toEqual([
      "refused",
      "expired",
      "succeeded",
    ]);
    expect(deletions()).toHaveLength(1);
    expect(orders.callbacks().map((callback) => callback.id)).toEqual(
      expect.arrayContaining([ids[0], ids[1]]),
    );
    expect(orders.callbacks().map((callback) => callback.id)).not.toContain(ids[2]);
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

    const approvals = result.steps[0]?.toolCalls.map((call) => call.approval?.interactionId);
    expect(new Set(approvals).size).toBe(3);
    expect(result.steps[0]?.toolCalls.map((call) => call.status)).toEqual([
      "refused",
      "refused",
      "succeeded",
    ]);
    expect(orders.callbacks().map((callback) => callback.id)).not.toContain(ids[2]);
  });
});

/** The approver without `requestApprovals`, as approvers written before it are: asked one action at a time. */
function itemByItem(approver: MessagingApprover): Approver {
  return {
    requestApproval: (action, context) => approver.requestApproval(action, context),
  };
}
