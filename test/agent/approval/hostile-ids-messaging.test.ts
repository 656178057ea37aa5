import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalPolicy } from "../../../src/agent/approval/approval-policy.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { writeTicket } from "../../../src/approvers/messaging/messaging-ticket.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import { silentLogger } from "../../../src/internal/logger.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../../src/simulators/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { readOne } from "../../helpers/approver-verbs.js";

// A messaging service that names the questions it was sent with ids of its
// choosing: an answer to one question must never approve an action another
// question showed (or none showed).

let orders: OrdersSimulator;
let messaging: MessagingSimulator;

beforeAll(async () => {
  [orders, messaging] = await Promise.all([
    startOrdersSimulator(),
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
  ]);
});
afterAll(() => Promise.all([orders.close(), messaging.close()]));
beforeEach(() => {
  orders.reset();
  messaging.reset();
});

const deletedIds = () =>
  orders.requests
    .filter((request) => request.method === "DELETE" && request.path === "/callbacks")
    .flatMap((request) => request.body as string[]);

/** A fetch that hands back `rename(interaction_id)` for every question sent. */
function renamingFetch(rename: (interactionId: string) => string): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (init?.method !== "POST" || url.pathname !== "/v1/messages" || !response.ok) {
      return response;
    }
    const body = (await response.json()) as { interaction_id?: string };
    if (body.interaction_id !== undefined) body.interaction_id = rename(body.interaction_id);
    return new Response(JSON.stringify(body), {
      status: response.status,
      headers: { "content-type": "application/json" },
    });
  };
}

function deleteCallbackTool() {
  const client = new OrderClient({ baseUrl: orders.url, token: orders.token, maxRetries: 0 });
  return defineTool({
    name: "delete_callback",
    description: "Deletes one callback by id.",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    describeAction: ({ id }) => ({ summary: `Delete callback ${id}.` }),
    execute: async ({ id }, context) => client.deleteCallbacks([id], { signal: context.signal }),
  });
}

function makeAgent(
  model: ScriptedModel,
  options: { fetch?: typeof globalThis.fetch; second?: string; policy?: ApprovalPolicy } = {},
) {
  return new Agent({
    model,
    tools: [deleteCallbackTool()],
    approver: new MessagingApprover({
      client: new MessagingClient({
        baseUrl: messaging.url,
        token: messaging.token,
        maxRetries: 0,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
      subscriptionLinkId: messaging.approverLinkId,
      ...(options.second !== undefined ? { secondSubscriptionLinkId: options.second } : {}),
      timeoutMs: 10_000,
      pollIntervalMs: 5,
      maxPollIntervalMs: 10,
    }),
    ...(options.policy ? { approvalPolicy: options.policy } : {}),
  });
}

const twoPeople: ApprovalPolicy = {
  rules: [{ name: "two people", tool: "delete_callback", decision: "ask", required: 2 }],
};

const deleting = (ids: readonly string[]) =>
  new ScriptedModel([
    {
      toolCalls: ids.map((id, index) => ({
        name: "delete_callback",
        arguments: { id },
        id: `call_${index + 1}`,
      })),
    },
    { text: "done" },
  ]);

describe("interaction ids a messaging service chooses", () => {
  /** Asks about `count` callbacks in one batch question, which the person approves whole. */
  async function approvedBatch(callbackIds: string[]) {
    const seen = new Set(messaging.interactions().map((entry) => entry.interaction_id));
    const run = await makeAgent(deleting(callbackIds)).run("delete them", {
      suspendOnApproval: true,
    });
    expect(run.status).toBe("suspended");
    const question = messaging.interactions().find((entry) => !seen.has(entry.interaction_id))!;
    messaging.answerInteraction(question.interaction_id, "approve");
    return question.interaction_id;
  }

  async function secondLink() {
    const link = await new MessagingClient({
      baseUrl: messaging.url,
      token: messaging.token,
    }).createSubscriptionLink({ label: "second approver" });
    messaging.activateLink(link.subscriptionLinkId);
    return link.subscriptionLinkId;
  }

  /**
   * A run asking about `callbackId` alone, its questions named `renamed` in
   * turn, resumed in a new process when it suspends.
   */
  async function askRenamed(
    callbackId: string,
    renamed: readonly string[],
    options: { second?: string; policy?: ApprovalPolicy } = {},
  ) {
    const names = [...renamed];
    const fetch = renamingFetch((id) => names.shift() ?? id);
    const asked = await makeAgent(deleting([callbackId]), { ...options, fetch }).run("delete one", {
      suspendOnApproval: true,
    });
    const result =
      asked.status === "suspended"
        ? await makeAgent(new ScriptedModel([{ text: "done" }]), options).resume(asked.state!)
        : asked;
    return result.steps.flatMap((step) => step.toolCalls)[0];
  }

  it("a question about one action named as an approved batch question, read in a new process, is refused, and nothing runs", async () => {
    const [first, second, third] = orders.callbacks().map((callback) => callback.id);
    const batch = await approvedBatch([first!, second!]);
    const record = await askRenamed(third!, [batch]);
    expect(deletedIds()).toEqual([]);
    expect(record).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "messaging_error" },
    });
  });

  it("a question to two approvers whose questions are named as two approved questions is refused, and nothing runs", async () => {
    const ids = orders.callbacks().map((callback) => callback.id);
    const one = await approvedBatch(ids.slice(0, 2));
    const other = await approvedBatch(ids.slice(2, 4));
    const record = await askRenamed(ids[4]!, [one, other], {
      second: await secondLink(),
      policy: twoPeople,
    });
    expect(deletedIds()).toEqual([]);
    expect(record).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "messaging_error" },
    });
  });

  it("two approvers' questions named by one interaction id: one person's approval does not count twice", async () => {
    const second = await secondLink();
    let firstId: string | undefined;
    const running = makeAgent(deleting([orders.callbacks()[0]!.id]), {
      second,
      policy: twoPeople,
      fetch: renamingFetch((id) => {
        firstId ??= id;
        return firstId;
      }),
    }).run("delete one");
    while (messaging.interactions().length < 2 || firstId === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Withdrawn already when the second question came back under its id.
    if (messaging.interaction(firstId!)?.state === "pending") {
      messaging.answerInteraction(firstId!, "approve");
    }
    const result = await running;
    expect(deletedIds()).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "messaging_error" },
    });
  });

  it("a ticket naming one interaction for both approvers, read in a new process, is not two approvals", async () => {
    const second = await secondLink();
    const [question] = await Promise.all([
      new MessagingClient({ baseUrl: messaging.url, token: messaging.token }).sendMessage({
        subscriptionLinkId: messaging.approverLinkId,
        kind: "interaction",
        text: "Delete callback cb_1?",
        options: [
          { id: "approve", label: "Approve" },
          { id: "deny", label: "Deny" },
        ],
      }),
    ]);
    messaging.answerInteraction(question!.interactionId!, "approve");
    const action = {
      approvalId: "run.approval",
      toolName: "delete_callback",
      toolCallId: "call_1",
      arguments: { id: "cb_1" },
      fingerprint: actionFingerprint("delete_callback", { id: "cb_1" }, undefined),
      description: { summary: "Delete callback cb_1." },
      requiredApprovers: 2,
    };
    const reader = new MessagingApprover({
      client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
      subscriptionLinkId: messaging.approverLinkId,
      secondSubscriptionLinkId: second,
    });
    // A ticket whose two questions are one interaction: the one answer is one person's.
    const sent = { interactionId: question!.interactionId!, messageId: question!.messageId };
    const ticket = writeTicket([
      {
        items: [{ approvalId: action.approvalId, fingerprint: action.fingerprint }],
        sent: [
          { ...sent, link: messaging.approverLinkId },
          { ...sent, link: second },
        ],
      },
    ]);
    const decision = await readOne(reader, ticket, action, {
      signal: new AbortController().signal,
      logger: silentLogger(),
      allowPending: true,
    });
    expect(decision).toMatchObject({ outcome: "refused", code: "not_enough_approvers" });
  });

  it("a question named by the id of an earlier, answered, question is refused: a budget is not extended by that answer", async () => {
    let sent = 0;
    let firstId: string | undefined;
    const callbackIds = orders
      .callbacks()
      .slice(0, 2)
      .map((callback) => callback.id);
    const agent = new Agent({
      model: new ScriptedModel([
        ...callbackIds.map((id) => ({
          toolCalls: [{ name: "delete_callback", arguments: { id } }],
        })),
        { text: "done" },
      ]),
      tools: [deleteCallbackTool()],
      approver: new MessagingApprover({
        client: new MessagingClient({
          baseUrl: messaging.url,
          token: messaging.token,
          maxRetries: 0,
          // The second question (the extension) comes back named as the first.
          fetch: renamingFetch((id) => {
            sent += 1;
            firstId ??= id;
            return sent === 2 ? firstId : id;
          }),
        }),
        subscriptionLinkId: messaging.approverLinkId,
        timeoutMs: 2_000,
        pollIntervalMs: 5,
        maxPollIntervalMs: 10,
      }),
      budget: { maxToolCalls: 1, onExhausted: "ask", extendBy: { toolCalls: 1 } },
    });
    const running = agent.run("delete two callbacks");
    while (firstId === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    messaging.answerInteraction(firstId, "approve");
    const result = await running;
    expect(result.status).toBe("budget_exhausted");
    expect(result.error?.message).toContain("the extension was not approved (messaging_error");
    expect(deletedIds()).toEqual(callbackIds.slice(0, 1));
  });
});
