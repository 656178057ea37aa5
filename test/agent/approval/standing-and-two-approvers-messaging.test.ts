import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalPolicy } from "../../../src/agent/approval/approval-policy.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { ConfigurationError } from "../../../src/errors/index.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../../src/simulators/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { orderTools } from "../../../src/tools/orders/order-tools.js";

let orders: OrdersSimulator;
let messaging: MessagingSimulator;
let client: MessagingClient;

beforeAll(async () => {
  orders = await startOrdersSimulator();
  messaging = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
  client = new MessagingClient({ baseUrl: messaging.url, token: messaging.token });
});
afterAll(() => Promise.all([orders.close(), messaging.close()]));
beforeEach(() => {
  orders.reset();
  messaging.reset();
});

const deletedIds = () =>
  orders.requests
    .filter((request) => request.method === "DELETE" && request.path.endsWith("/callbacks"))
    .flatMap((request) => (Array.isArray(request.body) ? (request.body as string[]) : []));

/** Resolves with the next interaction not in `seen`, once the simulator holds one. */
async function nextInteraction(seen: Set<string>) {
  for (;;) {
    const found = messaging.interactions().find((entry) => !seen.has(entry.interaction_id));
    if (found) {
      seen.add(found.interaction_id);
      return found;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function approver(options: Partial<ConstructorParameters<typeof MessagingApprover>[0]> = {}) {
  return new MessagingApprover({
    client,
    subscriptionLinkId: messaging.approverLinkId,
    pollIntervalMs: 5,
    maxPollIntervalMs: 10,
    ...options,
  });
}

/** One delete_callbacks call per step, each of one callback, then "done". */
function deletingOneByOne(count: number) {
  const ids = orders
    .callbacks()
    .slice(0, count)
    .map((callback) => callback.id);
  const model = new ScriptedModel([
    ...ids.map((id) => ({
      toolCalls: [{ name: "delete_callbacks", arguments: { callback_ids: [id] } }],
    })),
    { text: "done" },
  ]);
  return { ids, model };
}

const standingPolicy: ApprovalPolicy = {
  rules: [
    {
      name: "callback deletions",
      tool: "delete_callbacks",
      decision: "ask",
      standing: { maxCalls: 2, forMs: 600_000 },
    },
  ],
};

describe("MessagingApprover: standing approvals, against the simulators", () => {
  it("states the scope, offers approve_standing, and the next calls like it run without a question", async () => {
    const { ids, model } = deletingOneByOne(4);
    const agent = new Agent({
      model,
      tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
      approver: approver(),
      approvalPolicy: standingPolicy,
    });
    const running = agent.run("delete four callbacks");
    const seen = new Set<string>();
    const first = await nextInteraction(seen);
    const message = messaging.message(first.message_id)!;
    expect(message.options?.map((option) => option.id)).toEqual([
      "approve",
      "deny",
      "approve_standing",
    ]);
    expect(message.options?.[2]?.label).toBe("Approve this and up to 2 more like it");
    expect(message.text).toContain(
      'Or choose "Approve this and up to 2 more like it": then up to 2 more calls of delete_callbacks in this run on service "orders"',
    );
    expect(message.text).toContain(
      "A denial of yours, or a rule that forbids a call, still stops them.",
    );
    messaging.answerInteraction(first.interaction_id, "approve_standing");
    // The fourth call is outside the scope (two more): it is asked about, and denied.
    const fourth = await nextInteraction(seen);
    messaging.answerInteraction(fourth.interaction_id, "deny");
    const result = await running;

    expect(messaging.interactions()).toHaveLength(2);
    expect(deletedIds()).toEqual(ids.slice(0, 3));
    const records = result.steps.flatMap((step) => step.toolCalls);
    const standing = records[0]?.approval;
    expect(standing).toMatchObject({ outcome: "approved", interactionId: first.interaction_id });
    expect(first.metadata.approve_standing).toBe(
      standing?.outcome === "approved" ? standing.standing?.fingerprint : "missing",
    );
    expect(records[1]?.approval).toMatchObject({
      coveredBy: {
        approvalId: standing?.outcome === "approved" ? standing.approvalId : "missing",
        use: 1,
      },
    });
    expect(records[2]?.approval).toMatchObject({ coveredBy: { use: 2 } });
    expect(records[3]).toMatchObject({ status: "refused", approval: { code: "denied" } });
  });

  it("offers no standing answer when the rule asking offers none, and reads approve_standing then as unreadable", async () => {
    const { model } = deletingOneByOne(1);
    const agent = new Agent({
      model,
      tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
      approver: approver(),
      approvalPolicy: {
        rules: [{ name: "deletions", tool: "delete_callbacks", decision: "ask" }],
      },
    });
    const running = agent.run("delete one callback");
    const question = await nextInteraction(new Set());
    expect(messaging.message(question.message_id)?.options?.map((option) => option.id)).toEqual([
      "approve",
      "deny",
    ]);
    expect(messaging.message(question.message_id)?.text).not.toContain("more like it");
    // A forged answer with an option the question did not offer approves nothing.
    question.options.push({ id: "approve_standing", label: "forged" });
    messaging.answerInteraction(question.interaction_id, "approve_standing");
    const result = await running;
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { code: "unreadable_answer" },
    });
    expect(deletedIds()).toEqual([]);
  });
});

describe("MessagingApprover: two approvers, against the simulators", () => {
  const twoPeople: ApprovalPolicy = {
    rules: [{ name: "two people", tool: "delete_callbacks", decision: "ask", required: 2 }],
  };

  async function secondLink() {
    const link = await client.createSubscriptionLink({ label: "second approver" });
    messaging.activateLink(link.subscriptionLinkId);
    return link.subscriptionLinkId;
  }

  async function deleteOne(answers: (first: string, second: string) => void, allowEdits = false) {
    const second = await secondLink();
    const { ids, model } = deletingOneByOne(1);
    const agent = new Agent({
      model,
      tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
      approver: approver({ secondSubscriptionLinkId: second }),
      // Even a rule that allows edits offers none when two people must approve.
      approvalPolicy: allowEdits
        ? { rules: [{ ...twoPeople.rules![0]!, edits: true }] }
        : twoPeople,
    });
    const running = agent.run("delete one callback");
    const seen = new Set<string>();
    const questions = [await nextInteraction(seen), await nextInteraction(seen)];
    const byLink = (link: string) =>
      questions.find(
        (question) => messaging.message(question.message_id)?.subscription_link_id === link,
      )!;
    answers(byLink(messaging.approverLinkId).interaction_id, byLink(second).interaction_id);
    const result = await running;
    return { ids, result, second, questions, record: result.steps[0]?.toolCalls[0] };
  }

  it("asks both links the same question; only both approving runs it, and both are recorded", async () => {
    const { ids, record, second, questions } = await deleteOne((first, other) => {
      messaging.answerInteraction(first, "approve");
      messaging.answerInteraction(other, "approve", "checked with finance");
    }, true);
    expect(deletedIds()).toEqual(ids);
    // No edit is offered when two people must approve the same action.
    for (const question of questions) {
      expect(question.options.map((option) => option.id)).toEqual(["approve", "deny"]);
    }
    expect(questions[0]?.text).toBe(questions[1]?.text);
    // For people reading the record: both questions, the first link's first.
    const [mine, theirs] = [messaging.approverLinkId, second].map(
      (link) =>
        questions.find(
          (question) => messaging.message(question.message_id)?.subscription_link_id === link,
        )!,
    );
    expect(record?.approval).toMatchObject({
      outcome: "approved",
      approvers: [messaging.approverLinkId, second],
      interactionId: `${mine?.interaction_id}, ${theirs?.interaction_id}`,
      note: "checked with finance",
    });
  });

  it("any denial refuses, and the other question is withdrawn", async () => {
    const { record, questions } = await deleteOne((_first, other) => {
      messaging.answerInteraction(other, "deny", "not in production");
    });
    expect(deletedIds()).toEqual([]);
    expect(record).toMatchObject({ status: "refused", approval: { code: "denied" } });
    expect(
      questions.map((question) => messaging.interaction(question.interaction_id)?.state).sort(),
    ).toEqual(["answered", "canceled"]);
  });

  it("without a second link, an action two people must approve is refused without asking", async () => {
    const { model } = deletingOneByOne(1);
    const agent = new Agent({
      model,
      tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
      approver: approver(),
      approvalPolicy: twoPeople,
    });
    const result = await agent.run("delete one callback");
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { code: "not_enough_approvers" },
    });
    expect(messaging.interactions()).toEqual([]);
  });

  it("a suspended run reads both answers on resume", async () => {
    const second = await secondLink();
    const ids = [orders.callbacks()[0]!.id];
    const makeAgent = (steps: ConstructorParameters<typeof ScriptedModel>[0]) =>
      new Agent({
        model: new ScriptedModel(steps),
        tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
        approver: approver({ secondSubscriptionLinkId: second }),
        approvalPolicy: twoPeople,
      });
    const suspended = await makeAgent([
      { toolCalls: [{ name: "delete_callbacks", arguments: { callback_ids: ids } }] },
    ]).run("delete one callback", { suspendOnApproval: true });
    expect(suspended.status).toBe("suspended");
    const [first, other] = messaging.interactions();
    const ticket = suspended.state!.pendingCalls[0]!.ticket!;
    const approvalIds = [suspended.state!.pendingCalls[0]!.approvalId!];
    const peeking = approver({ secondSubscriptionLinkId: second });
    const signal = new AbortController().signal;
    expect(await peeking.peek(ticket, approvalIds, { signal })).toMatchObject({ pending: true });
    messaging.answerInteraction(first!.interaction_id, "approve");
    // One approval and one question open: still waiting for the second person.
    expect(await peeking.peek(ticket, approvalIds, { signal })).toMatchObject({ pending: true });
    // One answer is not enough: still waiting.
    const waiting = await makeAgent([]).resume(suspended.state!);
    expect(waiting.status).toBe("suspended");
    expect(deletedIds()).toEqual([]);
    messaging.answerInteraction(other!.interaction_id, "approve");
    expect(await peeking.peek(ticket, approvalIds, { signal })).toEqual({ pending: false });
    const done = await makeAgent([{ text: "done" }]).resume(waiting.state!);
    expect(done.status).toBe("completed");
    expect(deletedIds()).toEqual(ids);
  });

  it("refuses a second link equal to the first", () => {
    expect(() => approver({ secondSubscriptionLinkId: messaging.approverLinkId })).toThrow(
      ConfigurationError,
    );
  });
});
