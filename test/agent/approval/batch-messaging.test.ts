import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import type { ApprovalAction } from "../../../src/agent/approver.js";
import { RunNotResumableError } from "../../../src/agent/durable/durable-errors.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { maximumMessageTextLength } from "../../../src/clients/messaging/messaging-requests.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { actionFingerprint, textDigest } from "../../../src/internal/canonical-json.js";
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
import { useTemporaryDirectories } from "../durable/durable-helpers.js";
import { toolMessages } from "../fixtures.js";

let orders: OrdersSimulator;
let messaging: MessagingSimulator;
let plainMessaging: MessagingSimulator;
const makeDirectory = useTemporaryDirectories();

beforeAll(async () => {
  [orders, messaging, plainMessaging] = await Promise.all([
    startOrdersSimulator(),
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    // A service that carries options but no free text: no choice per item.
    startMessagingSimulator({
      answer: "never",
      deliveryStepMs: 1,
      features: ["notifications", "interactions", "options"],
    }),
  ]);
});
afterAll(() => Promise.all([orders.close(), messaging.close(), plainMessaging.close()]));
beforeEach(() => {
  orders.reset();
  messaging.reset();
  plainMessaging.reset();
});

const deletedIds = () =>
  orders.requests
    .filter((request) => request.method === "DELETE" && request.path === "/callbacks")
    .flatMap((request) => request.body as string[]);

/** `delete_callback`, one callback per call, against the orders simulator; `padding` lengthens its description. */
function deleteCallbackTool(padding = 0) {
  const client = new OrderClient({ baseUrl: orders.url, token: orders.token, maxRetries: 0 });
  return defineTool({
    name: "delete_callback",
    description: "Deletes one callback by id.",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    describeAction: ({ id }) => ({
      summary: `Delete callback ${id}.`,
      details: [
        { label: "callback", value: id },
        // Lines of 400 characters: long questions, no line cut.
        ...Array.from({ length: padding / 400 }, (_line, index) => ({
          label: `reason ${index + 1}`,
          value: "x".repeat(400),
        })),
      ],
    }),
    execute: async ({ id }, context) => client.deleteCallbacks([id], { signal: context.signal }),
  });
}

function makeAgent(
  model: ScriptedModel,
  options: {
    service?: MessagingSimulator;
    padding?: number;
    directory?: string;
    decisions?: ApprovalAuditRecord[];
  } = {},
) {
  const service = options.service ?? messaging;
  return new Agent({
    model,
    tools: [deleteCallbackTool(options.padding)],
    approver: new MessagingApprover({
      client: new MessagingClient({ baseUrl: service.url, token: service.token, maxRetries: 0 }),
      subscriptionLinkId: service.approverLinkId,
      timeoutMs: 10_000,
      pollIntervalMs: 5,
      maxPollIntervalMs: 10,
    }),
    ...(options.decisions
      ? { onApprovalDecided: (record) => void options.decisions?.push(record) }
      : {}),
    ...(options.directory ? { runStore: new FileRunStore({ directory: options.directory }) } : {}),
  });
}

/** The model deletes `count` callbacks in one answer, then finishes. */
function deleteInOneStep(count: number) {
  const ids = orders
    .callbacks()
    .slice(0, count)
    .map((callback) => callback.id);
  const model = new ScriptedModel([
    {
      toolCalls: ids.map((id, index) => ({
        name: "delete_callback",
        arguments: { id },
        id: `call_${index + 1}`,
      })),
    },
    { text: "done" },
  ]);
  return { ids, model };
}

async function questionsOf(service: MessagingSimulator, count: number) {
  while (service.interactions().length < count)
    await new Promise((resolve) => setTimeout(resolve, 5));
  return service.interactions();
}

describe("one question for parallel calls, through the messaging service", () => {
  it("asks once, numbers each action whole, and runs only the numbers approved", async () => {
    const { ids, model } = deleteInOneStep(3);
    const decisions: ApprovalAuditRecord[] = [];
    const running = makeAgent(model, { decisions }).run("delete three");
    const [question] = await questionsOf(messaging, 1);
    messaging.answerInteraction(
      question!.interaction_id,
      "approve_some",
      "1,3: keep the second for now",
    );
    const result = await running;

    expect(messaging.interactions()).toHaveLength(1);
    expect(question!.options.map((option) => option.id)).toEqual([
      "approve",
      "deny",
      "approve_some",
    ]);
    for (const [index, id] of ids.entries()) {
      expect(question!.text).toContain(`[${index + 1}] Delete callback ${id}.`);
    }
    expect(question!.metadata.items).toEqual(
      ids.map((_id, index) =>
        expect.objectContaining({ number: index + 1, tool: "delete_callback" }),
      ),
    );
    expect(deletedIds()).toEqual(expect.arrayContaining([ids[0], ids[2]]));
    expect(deletedIds()).toHaveLength(2);
    expect(result.steps[0]!.toolCalls.map((call) => call.status)).toEqual([
      "succeeded",
      "refused",
      "succeeded",
    ]);
    const told = toolMessages(model.requests[1]!.messages);
    expect(told[1]?.content).toContain("keep the second for now");
    // One record per item, each under its own approval id, all naming the one question and its text.
    expect(decisions).toHaveLength(3);
    expect(
      decisions.map((record) => [record.toolCallId, record.outcome, record.interactionId]),
    ).toEqual(
      expect.arrayContaining([
        ["call_1", "approved", question!.interaction_id],
        ["call_2", "refused", question!.interaction_id],
        ["call_3", "approved", question!.interaction_id],
      ]),
    );
    expect(new Set(decisions.map((record) => record.approvalId)).size).toBe(3);
    expect(new Set(decisions.map((record) => record.questionDigest))).toEqual(
      new Set([textDigest(question!.text)]),
    );
  });

  it.each([
    ["approve", "", 3],
    ["deny", "", 0],
    ["approve_some", "1,4", 0],
    ["approve_some", "first and third", 0],
  ])("answer %s %j runs %d of the 3 actions", async (optionId, text, expected) => {
    const { model } = deleteInOneStep(3);
    const running = makeAgent(model).run("delete three");
    const [question] = await questionsOf(messaging, 1);
    messaging.answerInteraction(question!.interaction_id, optionId, text === "" ? undefined : text);
    const result = await running;

    expect(deletedIds()).toHaveLength(expected);
    if (optionId === "approve_some") {
      expect(result.steps[0]!.toolCalls.map((call) => call.approval)).toEqual(
        Array(3).fill(expect.objectContaining({ outcome: "refused", code: "unreadable_answer" })),
      );
    }
  });

  it("offers no choice per item where the service carries no free text", async () => {
    const { model } = deleteInOneStep(2);
    const running = makeAgent(model, { service: plainMessaging }).run("delete two");
    const [question] = await questionsOf(plainMessaging, 1);
    expect(question!.options.map((option) => option.id)).toEqual(["approve", "deny"]);
    plainMessaging.answerInteraction(question!.interaction_id, "approve");
    await running;
    expect(deletedIds()).toHaveLength(2);
  });

  it("splits a question that would pass the message limit, never cutting an action", async () => {
    const { ids, model } = deleteInOneStep(6);
    const running = makeAgent(model, { padding: 1200 }).run("delete six");
    const questions = await questionsOf(messaging, 2);
    // Wait until every question of the step is out.
    while (
      messaging.interactions().flatMap((interaction) => interaction.metadata.items as unknown[])
        .length < 6
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const all = messaging.interactions();
    expect(all.length).toBeGreaterThan(1);
    for (const question of all) {
      expect(question.text.length).toBeLessThanOrEqual(maximumMessageTextLength);
      expect(question.text).not.toContain("not shown");
    }
    for (const [index, id] of ids.entries()) {
      const holding = all.filter((question) =>
        question.text.includes(`[${index + 1}] Delete callback ${id}.`),
      );
      expect(holding).toHaveLength(1);
    }
    // The first part approved whole, the rest denied: only the first part's actions run.
    const first = all.find((question) => question.text.includes("[1] "))!;
    for (const question of all) {
      messaging.answerInteraction(question.interaction_id, question === first ? "approve" : "deny");
    }
    await running;
    const numbersInFirst = (first.metadata.items as Array<{ number: number }>).map(
      (item) => item.number,
    );
    expect(deletedIds().sort()).toEqual(numbersInFirst.map((number) => ids[number - 1]).sort());
    expect(questions.length).toBeGreaterThan(0);
  });

  it("suspends on a batch question, and a resumed run runs only the item approved, once", async () => {
    const directory = await makeDirectory();
    const { ids, model } = deleteInOneStep(3);
    const suspended = await makeAgent(model, { directory }).run("delete three", {
      suspendOnApproval: true,
    });
    expect(suspended.status).toBe("suspended");
    const [question] = messaging.interactions();
    expect(messaging.interactions()).toHaveLength(1);
    // Each call keeps the one question's ticket, under its own approval id.
    const pendingCalls = suspended.state?.pendingCalls ?? [];
    expect(pendingCalls).toHaveLength(3);
    expect(new Set(pendingCalls.map((call) => call.ticket)).size).toBe(1);
    expect(new Set(pendingCalls.map((call) => call.approvalId)).size).toBe(3);

    messaging.answerInteraction(question!.interaction_id, "approve_some", "2");
    const resumedModel = new ScriptedModel([{ text: "deleted the second" }]);
    const final = await makeAgent(resumedModel, { directory }).resume(suspended.runId ?? "");
    expect(final.status).toBe("completed");
    expect(deletedIds()).toEqual([ids[1]]);
    expect(messaging.interactions()).toHaveLength(1);

    const late = makeAgent(new ScriptedModel([]), { directory }).resume(suspended.runId ?? "");
    await expect(late).rejects.toBeInstanceOf(RunNotResumableError);
    expect(deletedIds()).toEqual([ids[1]]);
  });

  it("sends a two-approver question and the batch question at once, neither waiting for the other", async () => {
    const second = await new MessagingClient({
      baseUrl: messaging.url,
      token: messaging.token,
    }).createSubscriptionLink({ label: "second approver" });
    messaging.activateLink(second.subscriptionLinkId);
    const approver = new MessagingApprover({
      client: new MessagingClient({
        baseUrl: messaging.url,
        token: messaging.token,
        maxRetries: 0,
      }),
      subscriptionLinkId: messaging.approverLinkId,
      secondSubscriptionLinkId: second.subscriptionLinkId,
      timeoutMs: 10_000,
      pollIntervalMs: 5,
    });
    const action = (id: string, requiredApprovers?: number): ApprovalAction => ({
      approvalId: `run.approval-${id}`,
      toolName: "delete_callback",
      toolCallId: `call_${id}`,
      arguments: { id },
      fingerprint: actionFingerprint("delete_callback", { id }),
      description: { summary: `Delete callback ${id}.` },
      ...(requiredApprovers ? { requiredApprovers } : {}),
    });
    const actions = [action("a", 2), action("b"), action("c")];
    const context = { signal: new AbortController().signal, logger: silentLogger() };
    const asking = approver
      .ask(actions, context)
      .then((ticket) => approver.read(ticket, actions, context));
    // Two questions to the two people about a, and one question about b and c: all out unanswered.
    const questions = await questionsOf(messaging, 3);
    const batch = questions.find((question) => question.metadata.items !== undefined)!;
    expect(batch.text).toContain("[1] Delete callback b.");
    messaging.answerInteraction(batch.interaction_id, "approve");
    for (const question of questions) {
      if (question !== batch) messaging.answerInteraction(question.interaction_id, "deny");
    }
    expect((await asking).map((decision) => decision.outcome)).toEqual([
      "refused",
      "approved",
      "approved",
    ]);
  });

  it("never lets a late answer to an older batch question approve the same actions asked again", async () => {
    const directory = await makeDirectory();
    const { ids, model } = deleteInOneStep(2);
    const older = await makeAgent(model, { directory }).run("delete two", {
      suspendOnApproval: true,
    });
    const again = deleteInOneStep(2);
    const newer = await makeAgent(again.model, { directory }).run("delete two", {
      suspendOnApproval: true,
    });
    expect([older.status, newer.status]).toEqual(["suspended", "suspended"]);
    const [olderQuestion, newerQuestion] = messaging.interactions();

    // The person approves the older question, late; the newer one is still open.
    messaging.answerInteraction(olderQuestion!.interaction_id, "approve");
    const resumed = await makeAgent(new ScriptedModel([]), { directory }).resume(newer.runId ?? "");
    expect(resumed.status).toBe("suspended");
    expect(deletedIds()).toEqual([]);

    messaging.answerInteraction(newerQuestion!.interaction_id, "approve_some", "2");
    const final = await makeAgent(new ScriptedModel([{ text: "done" }]), { directory }).resume(
      newer.runId ?? "",
    );
    expect(final.status).toBe("completed");
    expect(deletedIds()).toEqual([ids[1]]);
  });
});
