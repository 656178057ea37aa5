import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalAction } from "../../../src/agent/approver.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../../src/simulators/index.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { orderTools } from "../../../src/tools/orders/order-tools.js";
import { formToken, postInboxForm } from "../../simulators/inbox-form.js";
import { callbackTools } from "../durable/durable-helpers.js";
import { toolMessages } from "../fixtures.js";

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

const deletions = () =>
  orders.requests.filter(
    (request) => request.method === "DELETE" && request.path.endsWith("/callbacks"),
  );

/** The model asks to delete two callbacks; the person answers the question with `optionId` and `text`. */
async function deleteTwoAnswering(optionId: string, text: string) {
  const ids = orders
    .callbacks()
    .slice(0, 2)
    .map((callback) => callback.id);
  const model = new ScriptedModel([
    { toolCalls: [{ name: "delete_callbacks", arguments: { callback_ids: ids } }] },
    { text: "done" },
  ]);
  const agent = new Agent({
    approvalPolicy: { edits: true },
    model,
    tools: orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token })),
    approver: new MessagingApprover({
      client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
      subscriptionLinkId: messaging.approverLinkId,
      pollIntervalMs: 5,
      maxPollIntervalMs: 10,
    }),
  });
  const running = agent.run("delete two callbacks");
  while (messaging.interactions().length < 1)
    await new Promise((resolve) => setTimeout(resolve, 5));
  const question = messaging.interactions()[0]!;
  messaging.answerInteraction(
    question.interaction_id,
    optionId,
    text.replaceAll("$FIRST", ids[0]!),
  );
  const result = await running;
  const told = JSON.parse(toolMessages(model.requests[1]?.messages ?? [])[0]?.content ?? "{}");
  return { ids, result, told, question: messaging.message(question.message_id)! };
}

describe("edit, then approve, through the messaging service's free text", () => {
  it("runs only the edited action, and tells the model the person changed the call", async () => {
    const { ids, result, told, question } = await deleteTwoAnswering(
      "edit",
      '{"callback_ids":["$FIRST"]}',
    );
    expect(question.options?.map((option) => option.id)).toEqual(["approve", "deny", "edit"]);
    // The arguments print as JSON, not as a quoted string of JSON, once, above the offer.
    expect(question.text).toContain(
      ["  | {", '  |   "callback_ids": [', `  |     "${ids[0]}",`, `  |     "${ids[1]}"`].join(
        "\n",
      ),
    );
    expect(question.text).toContain(
      'Or choose "Approve with changes" and reply with the whole arguments as JSON; they are shown above.',
    );
    // The arguments, for a channel that shows them ready to change (the inbox page, the terminal).
    expect(question.metadata?.arguments).toEqual({ callback_ids: ids });
    expect(deletions()).toHaveLength(1);
    expect(deletions()[0]?.body).toEqual([ids[0]]);
    const record = result.steps[0]?.toolCalls[0];
    expect(record).toMatchObject({
      status: "succeeded",
      arguments: { callback_ids: [ids[0]] },
      approval: {
        outcome: "approved",
        edited: { arguments: { callback_ids: [ids[0]] } },
      },
    });
    // Bound to the edited action, not to the one the question was asked about.
    expect(record?.approval?.fingerprint).not.toBe(question.metadata?.fingerprint);
    expect(record?.approval?.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(told).toMatchObject({
      edited_by_person: true,
      asked_arguments: { callback_ids: ids },
      ran_arguments: { callback_ids: [ids[0]] },
    });
    expect(told.message).toContain("The person changed your call to delete_callbacks");
    expect(orders.callbacks().map((callback) => callback.id)).toContain(ids[1]);
  });

  it.each([
    [
      "the tool's schema rejects",
      '{"callback_ids":[]}',
      /does not fit delete_callbacks's parameters/,
    ],
    ["is not JSON", "{callback_ids: oops", /is not JSON/],
    // JSON.parse would keep the second quietly: the person wrote both.
    [
      "gives one argument twice",
      '{"callback_ids":["$FIRST"],"callback_\\u0069ds":["$FIRST","cb-other"]}',
      /gives "callback_ids" twice/,
    ],
  ])("an edit that %s never runs, and says why", async (_name, text, reason) => {
    const { result, told } = await deleteTwoAnswering("edit", text);
    expect(deletions()).toHaveLength(0);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "invalid_edit", reason: expect.stringMatching(reason) },
    });
    expect(told).toMatchObject({ error: "approval_refused", code: "invalid_edit" });
  });
});

describe("the gate binds an edit to what the person approved", () => {
  it("carries the tool's parameters with the question, so the inbox page refuses an edit they do not take before it is an answer", async () => {
    const ids = orders
      .callbacks()
      .slice(0, 2)
      .map((callback) => callback.id);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_callbacks", arguments: { callback_ids: ids } }] },
      { text: "done" },
    ]);
    const tools = orderTools(new OrderClient({ baseUrl: orders.url, token: orders.token }));
    const agent = new Agent({
      approvalPolicy: { edits: true },
      model,
      tools,
      approver: new MessagingApprover({
        client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
        subscriptionLinkId: messaging.approverLinkId,
        pollIntervalMs: 5,
        maxPollIntervalMs: 10,
      }),
    });
    const running = agent.run("delete two callbacks");
    while (messaging.interactions().length < 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const question = messaging.interactions()[0]!;
    const deleteTool = tools.find((tool) => tool.name === "delete_callbacks")!;
    expect(question.metadata?.arguments_schema).toEqual(deleteTool.parameters);

    const token = formToken(await (await fetch(messaging.inboxUrl)).text());
    const wrong = await postInboxForm(messaging, question.interaction_id, {
      token,
      option_id: "edit",
      arguments: JSON.stringify({ callback_ids: ids[0] }),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("do not fit the tool&#39;s parameters: callback_ids");
    expect(messaging.interaction(question.interaction_id)?.state).toBe("pending");

    const right = await postInboxForm(messaging, question.interaction_id, {
      token,
      option_id: "edit",
      arguments: JSON.stringify({ callback_ids: [ids[0]] }),
    });
    expect(right.status).toBe(303);
    const result = await running;
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "succeeded",
      arguments: { callback_ids: [ids[0]] },
    });
    expect(deletions()[0]?.body).toEqual([ids[0]]);
  });

  it("does not print the arguments twice when the question already shows them as JSON", async () => {
    const { tools } = callbackTools();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      approvalPolicy: { edits: true },
      model,
      tools,
      approver: new MessagingApprover({
        client: new MessagingClient({ baseUrl: messaging.url, token: messaging.token }),
        subscriptionLinkId: messaging.approverLinkId,
        pollIntervalMs: 5,
        maxPollIntervalMs: 10,
      }),
    });
    const running = agent.run("delete a callback");
    while (messaging.interactions().length < 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const question = messaging.interactions()[0]!;
    messaging.answerInteraction(question.interaction_id, "deny");
    await running;
    const { text } = messaging.message(question.message_id)!;
    // The tool has no describeAction: the generic description shows the whole arguments as JSON.
    expect(text).toContain('  | {\n  |   "ids": [\n  |     "cb-1"\n  |   ]\n  | }');
    expect(text).toContain(
      'Or choose "Approve with changes" and reply with the whole arguments as JSON; they are shown above.',
    );
    expect(text.match(/"cb-1"/g)).toHaveLength(1);
  });

  it("refuses an edit whose fingerprint is not that of the edited arguments", async () => {
    const { tools, deletions: ran } = callbackTools();
    const agent = new Agent({
      approvalPolicy: { edits: true },
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1", "cb-2"] } }] },
        { text: "done" },
      ]),
      tools,
      approver: new ScriptedApprover([
        (action: ApprovalAction) => ({
          outcome: "approved",
          // The original action's fingerprint, carrying other arguments.
          fingerprint: action.fingerprint,
          editedArguments: { ids: ["cb-3"] },
        }),
      ]),
    });
    const result = await agent.run("tidy");
    expect(ran).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({
      outcome: "refused",
      code: "fingerprint_mismatch",
    });
  });
});

/** An approver that approves every question with an edit to `ids`, as `interactionId`. */
function editingApprover(edit: unknown, interactionId = "interaction-edit-1") {
  return new ScriptedApprover(
    Array.from({ length: 3 }, () => (action: ApprovalAction) => ({
      outcome: "approved",
      fingerprint: actionFingerprint(action.toolName, edit, action.target),
      interactionId,
      editedArguments: edit,
    })),
  );
}

describe("an edit is held to every rule the model's call is held to", () => {
  it("a rule of the approval policy that denies the edited call refuses it, though a person approved", async () => {
    const { tools, deletions: ran } = callbackTools();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools,
      approvalPolicy: {
        edits: true,
        rules: [
          {
            name: "never cb-3",
            tool: "delete_callbacks",
            decision: "deny",
            when: (args) => (args as { ids: string[] }).ids.includes("cb-3"),
          },
        ],
      },
      approver: editingApprover({ ids: ["cb-3"] }),
    });
    const result = await agent.run("tidy");
    expect(ran).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: {
        outcome: "refused",
        code: "policy_denied",
        rule: "never cb-3",
        reason: expect.stringMatching(/as the person changed it/),
      },
    });
    const told = JSON.parse(toolMessages(model.requests[1]?.messages ?? [])[0]?.content ?? "{}");
    expect(told).toMatchObject({ error: "approval_refused", code: "policy_denied" });
  });

  it("an edit to a call a rule wants two approvers for, approved by one, is refused", async () => {
    const { tools, deletions: ran } = callbackTools();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools,
      approvalPolicy: {
        edits: true,
        rules: [
          {
            name: "two people for cb-3",
            tool: "delete_callbacks",
            decision: "ask",
            required: 2,
            when: (args) => (args as { ids: string[] }).ids.includes("cb-3"),
          },
        ],
      },
      approver: editingApprover({ ids: ["cb-3"] }),
    });
    const result = await agent.run("tidy");
    expect(ran).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: "not_enough_approvers", rule: "two people for cb-3" },
    });
  });

  it("an edit the tool's schema would fill in (a default) is refused: only what the person approved runs", async () => {
    const ran: unknown[] = [];
    const tool = defineTool({
      name: "refund_order",
      description: "Refunds an order.",
      parameters: z.object({ id: z.string(), notify: z.boolean().default(true) }),
      needsApproval: true,
      execute: (args) => {
        ran.push(args);
        return "refunded";
      },
    });
    const agent = new Agent({
      approvalPolicy: { edits: true },
      model: new ScriptedModel([
        { toolCalls: [{ name: "refund_order", arguments: { id: "o-1", notify: false } }] },
        { text: "done" },
      ]),
      tools: [tool],
      approver: editingApprover({ id: "o-2" }),
    });
    const result = await agent.run("refund");
    expect(ran).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({
      code: "invalid_edit",
      reason: expect.stringMatching(/reads the person's edit differently/),
    });
  });

  it("an edit that copies a secret's redaction marker from the question is refused: the marker never runs in its place", async () => {
    const ran: unknown[] = [];
    const tool = defineTool({
      name: "register_callback",
      description: "Registers a callback URL with its signing secret.",
      parameters: z.object({ url: z.string(), secret: z.string() }),
      needsApproval: true,
      execute: (args) => {
        ran.push(args);
        return "registered";
      },
    });
    const agent = new Agent({
      approvalPolicy: { edits: true },
      model: new ScriptedModel([
        {
          toolCalls: [
            {
              name: "register_callback",
              arguments: { url: "https://hooks.example.com/a", secret: "s3cr3t-value" },
            },
          ],
        },
        { text: "done" },
      ]),
      tools: [tool],
      approver: editingApprover({ url: "https://hooks.example.com/b", secret: "[redacted]" }),
    });
    const result = await agent.run("register");
    expect(ran).toEqual([]);
    expect(result.steps[0]?.toolCalls[0]?.approval).toMatchObject({
      code: "invalid_edit",
      reason: expect.stringMatching(
        /holds \[redacted\] at secret, where the question hid a secret/,
      ),
    });
  });
});
