import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalPolicy } from "../../../src/agent/approval/approval-policy.js";
import { InMemoryRunStore } from "../../../src/agent/durable/in-memory-run-store.js";
import type { RunStore } from "../../../src/agent/durable/run-store.js";
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
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { readOne } from "../../helpers/approver-verbs.js";
import { useTemporaryDirectories } from "../durable/durable-helpers.js";

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
  options: {
    fetch?: typeof globalThis.fetch;
    second?: string;
    policy?: ApprovalPolicy;
    runStore?: RunStore;
  } = {},
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
    ...(options.runStore ? { runStore: options.runStore } : {}),
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

/** A fetch that names every question sent as `named()` says (its interaction and message ids), while it says any. */
function namingFetch(
  named: () => { interactionId: string; messageId: string } | undefined,
): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const ids = named();
    if (init?.method !== "POST" || url.pathname !== "/v1/messages" || !response.ok || !ids) {
      return response;
    }
    const body = (await response.json()) as Record<string, unknown>;
    if (body.interaction_id === undefined) return Response.json(body, { status: response.status });
    return Response.json(
      { ...body, interaction_id: ids.interactionId, message_id: ids.messageId },
      { status: response.status },
    );
  };
}

/**
 * A fetch whose interaction reads echo the question the interaction was
 * created with (its text, and its metadata when `metadata`), as some
 * services do; `echoOf` picks which question's, by the interaction asked.
 */
function echoingFetch(
  options: { metadata?: boolean; echoOf?: (interactionId: string) => string } = {},
): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const [, version, collection, id] = url.pathname.split("/");
    if (init?.method !== undefined && init.method !== "GET") return response;
    if (version !== "v1" || collection !== "interactions" || id === undefined || !response.ok) {
      return response;
    }
    const body = (await response.json()) as Record<string, unknown>;
    const echoed = options.echoOf?.(decodeURIComponent(id)) ?? decodeURIComponent(id);
    const question = messaging.interaction(echoed);
    return Response.json(
      {
        ...body,
        text: question?.text,
        ...(options.metadata ? { metadata: question?.metadata } : {}),
      },
      { status: response.status },
    );
  };
}

describe("an interaction answers one question, ever", () => {
  const makeDirectory = useTemporaryDirectories();

  /** Run 1 asks about `callbackId` and suspends; the person approves its question. */
  async function approvedFirstRun(callbackId: string, runStore: RunStore) {
    const asked = await makeAgent(deleting([callbackId]), { runStore }).run("delete one", {
      suspendOnApproval: true,
    });
    expect(asked.status).toBe("suspended");
    const interactionId = asked.state?.pendingCalls[0]?.interactionId ?? "";
    const question = messaging.interaction(interactionId);
    messaging.answerInteraction(interactionId, "approve");
    return { runId: asked.runId ?? "", interactionId, messageId: question?.message_id ?? "" };
  }

  /**
   * Run 2 asks about `callbackId` through a service that names its question
   * as run 1's (interaction and message id), with `asking` as its store; a
   * run that suspends is resumed by a fresh agent on `resuming`.
   */
  async function secondRunNamedAsFirst(
    callbackId: string,
    first: { interactionId: string; messageId: string },
    stores: { asking: RunStore; resuming: RunStore },
  ) {
    const fetch = namingFetch(() => first);
    const asked = await makeAgent(deleting([callbackId]), { fetch, runStore: stores.asking }).run(
      "delete one",
      { suspendOnApproval: true },
    );
    const result =
      asked.status === "suspended"
        ? await makeAgent(new ScriptedModel([{ text: "done" }]), {
            runStore: stores.resuming,
          }).resume(asked.runId ?? "")
        : asked;
    return result.steps.flatMap((step) => step.toolCalls)[0];
  }

  /** The refusal of a question whose interaction holds another question, as asked (`when: "asked"`) or read. */
  const namesTheInteraction = (interactionId: string, when: "asked" | "read" = "asked") =>
    expect.objectContaining({
      status: "refused",
      approval: expect.objectContaining({
        outcome: "refused",
        code: "messaging_error",
        reason: expect.stringContaining(
          when === "asked"
            ? `under interaction "${interactionId}" of link "${messaging.approverLinkId}", which already holds another question: an answer to it is that question's`
            : `interaction "${interactionId}" of link "${messaging.approverLinkId}" holds another question than the one asked about "delete_callback": its answer is that question's, so it approves nothing here`,
        ),
      }),
    });

  it("a second run's question named as the first run's, resumed by a fresh agent on the same state directory, deletes nothing; the first run's approval still runs its own call", async () => {
    const directory = await makeDirectory();
    const store = () => new FileRunStore({ directory });
    const [mine, theirs] = orders.callbacks().map((callback) => callback.id);
    const first = await approvedFirstRun(mine!, store());

    const record = await secondRunNamedAsFirst(theirs!, first, {
      asking: store(),
      resuming: store(),
    });
    expect(deletedIds()).toEqual([]);
    expect(record).toEqual(namesTheInteraction(first.interactionId));

    // Exactly one question holds the answer: the one the person was shown.
    const resumed = await makeAgent(new ScriptedModel([{ text: "done" }]), {
      runStore: store(),
    }).resume(first.runId);
    expect(resumed.steps[0]?.toolCalls[0]?.status).toBe("succeeded");
    expect(deletedIds()).toEqual([mine]);
  });

  it("two agents of one process sharing a run store: the second run's question named as the first's approves nothing", async () => {
    const runStore = new InMemoryRunStore();
    const [mine, theirs] = orders.callbacks().map((callback) => callback.id);
    const first = await approvedFirstRun(mine!, runStore);
    const record = await secondRunNamedAsFirst(theirs!, first, {
      asking: runStore,
      resuming: runStore,
    });
    expect(deletedIds()).toEqual([]);
    expect(record).toEqual(namesTheInteraction(first.interactionId));
  });

  it("a question asked while the store could not record its interaction is bound when its answer is read: another question's answer approves nothing", async () => {
    const directory = await makeDirectory();
    const [mine, theirs] = orders.callbacks().map((callback) => callback.id);
    const first = await approvedFirstRun(mine!, new FileRunStore({ directory }));
    // The store of the process asking fails to record bindings (its disk is full, say).
    const failing = new Proxy(new FileRunStore({ directory }), {
      get(target, property) {
        if (property === "bindInteraction") {
          return () => Promise.reject(new Error("ENOSPC: no space left on device"));
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const record = await secondRunNamedAsFirst(theirs!, first, {
      asking: failing,
      resuming: new FileRunStore({ directory }),
    });
    expect(deletedIds()).toEqual([]);
    expect(record).toEqual(namesTheInteraction(first.interactionId, "read"));
  });

  it("a service that echoes the question in its interaction reads: the answer counts only when it echoes the question sent", async () => {
    // Each run in an agent of its own, with its own store: only the echo tells the questions apart.
    const [mine, theirs] = orders.callbacks().map((callback) => callback.id);
    let firstId: string | undefined;
    const asking = makeAgent(deleting([mine!]), {
      fetch: echoingFetch({ metadata: true }),
    }).run("delete one");
    while (firstId === undefined) {
      firstId = messaging.interactions()[0]?.interaction_id;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    messaging.answerInteraction(firstId, "approve");
    const approved = await asking;
    expect(approved.steps[0]?.toolCalls[0]?.status).toBe("succeeded");
    expect(deletedIds()).toEqual([mine]);

    // The second question reads the first one's interaction, which echoes the first question.
    const first = {
      interactionId: firstId,
      messageId: messaging.interaction(firstId)?.message_id ?? "",
    };
    const named = namingFetch(() => first);
    const echoing = echoingFetch();
    const result = await makeAgent(deleting([theirs!]), {
      fetch: (input, init) => (init?.method === "POST" ? named(input, init) : echoing(input, init)),
    }).run("delete one");
    expect(deletedIds()).toEqual([mine]);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: {
        outcome: "refused",
        code: "messaging_error",
        reason: expect.stringContaining(
          `interaction "${firstId}" carries another question than the one sent`,
        ),
      },
    });
  });
});
