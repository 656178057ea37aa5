import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { ToolModelMessage } from "../../src/agent/model-message.js";
import { actionFingerprint } from "../../src/internal/canonical-json.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { orderTools } from "../../src/tools/orders/order-tools.js";
import {
  callbacks,
  interaction,
  makeApprover,
  makeOrderClient,
  messageId,
  messagingOrigin,
  nockDeleteCallbacks,
  nockListCallbacks,
  nockReadiness,
  nockSendQuestion,
  retiredIds,
  sentFingerprint,
} from "./approval-test-kit.js";

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

const interactionPath = "/v1/interactions/i_1";

interface RefusalCase {
  label: string;
  code: string;
  /** Something the reason must say, so the model can tell the user why. */
  reason: RegExp;
  /** Answers the messaging routes after the readiness check. */
  messaging(sent: Array<Record<string, unknown>>): void;
  readiness?: () => void;
  approverTimeoutMs?: number;
}

const refusalCases: RefusalCase[] = [
  {
    label: "the approver denies",
    code: "denied",
    reason: /denied "delete_callbacks"/,
    messaging: (sent) => {
      nock(messagingOrigin)
        .get(interactionPath)
        .reply(200, () =>
          interaction("answered", { optionId: "deny", fingerprint: sentFingerprint(sent) }),
        );
    },
  },
  {
    label: "the question is cancelled",
    code: "canceled",
    reason: /was cancelled before anyone answered/,
    messaging: () => {
      nock(messagingOrigin).get(interactionPath).reply(200, interaction("canceled"));
    },
  },
  {
    label: "delivery of the question fails",
    code: "delivery_failed",
    reason: /could not be delivered to the approver \(undeliverable: device unreachable\)/,
    messaging: () => {
      nock(messagingOrigin)
        .get(interactionPath)
        .reply(200, interaction("failed"))
        .get(`/v1/messages/${messageId}`)
        .reply(200, {
          message_id: messageId,
          state: "failed",
          error: { code: "undeliverable", message: "device unreachable" },
        });
    },
  },
  {
    label: "the approver's link is not active",
    code: "approver_unavailable",
    reason: /subscription link "sl_approver" is still pending/,
    readiness: () => nockReadiness({ state: "pending" }),
    messaging: () => {},
  },
  {
    label: "the provider cannot carry interactions",
    code: "approver_unavailable",
    reason: /does not support interactions/,
    readiness: () => nockReadiness({ state: "active" }, ["notifications"]),
    messaging: () => {},
  },
  {
    label: "the answer is not one that was offered",
    code: "unreadable_answer",
    reason: /chose the option "maybe", which was not offered/,
    messaging: (sent) => {
      nock(messagingOrigin)
        .get(interactionPath)
        .reply(200, () =>
          interaction("answered", { optionId: "maybe", fingerprint: sentFingerprint(sent) }),
        );
    },
  },
  {
    label: "the messaging service fails with 5xx while waiting",
    code: "messaging_error",
    reason: /failed while waiting for the answer/,
    messaging: () => {
      nock(messagingOrigin)
        .get(interactionPath)
        .times(3)
        .reply(503, { error: { code: "unavailable", message: "try later" } })
        .post(`/v1/messages/${messageId}/cancel`)
        .reply(200, { message_id: messageId, state: "canceled" });
    },
  },
  {
    label: "the approval read back belongs to other arguments",
    code: "fingerprint_mismatch",
    reason: /belongs to an approval request for different arguments/,
    messaging: () => {
      const otherArguments = { callback_ids: [callbacks[0]?.id] };
      nock(messagingOrigin)
        .get(interactionPath)
        .reply(
          200,
          interaction("answered", {
            optionId: "approve",
            fingerprint: actionFingerprint("delete_callbacks", otherArguments),
          }),
        );
    },
  },
];

const expiryCases: RefusalCase[] = [
  {
    label: "the question expires",
    code: "expired",
    reason: /expired before anyone answered/,
    messaging: () => {
      nock(messagingOrigin).get(interactionPath).reply(200, interaction("expired"));
    },
  },
  {
    label: "nobody answers in time",
    code: "expired",
    reason: /No answer to the approval request .* came within/,
    approverTimeoutMs: 150,
    messaging: () => {
      nock(messagingOrigin)
        .get(interactionPath)
        .reply(200, interaction("pending"))
        .persist()
        .get(`/v1/messages/${messageId}`)
        .reply(200, { message_id: messageId, state: "delivered" })
        .post(`/v1/messages/${messageId}/cancel`)
        .reply(200, { message_id: messageId, state: "canceled" });
    },
  },
];

/** One delete_callbacks call through an agent, then the model's answer from what it was told. */
async function runDeletion(approverTimeoutMs?: number) {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "delete_callbacks", arguments: { callback_ids: retiredIds } }] },
    (request) => {
      const told = request.messages.at(-1) as ToolModelMessage;
      const parsed = JSON.parse(told.content) as Record<string, unknown>;
      return parsed.error === "approval_refused"
        ? { text: `Nothing was deleted (${String(parsed.code)}): ${String(parsed.reason)}` }
        : { text: `Deleted ${String(parsed.deleted)} callbacks.` };
    },
  ]);
  const agent = new Agent({
    model,
    tools: orderTools(makeOrderClient()),
    approver: makeApprover(approverTimeoutMs !== undefined ? { timeoutMs: approverTimeoutMs } : {}),
  });
  const result = await agent.run("Remove the callbacks on hooks.old-warehouse.example.");
  const told = model.requests[1]?.messages.filter(
    (message): message is ToolModelMessage => message.role === "tool",
  );
  return { result, told };
}

describe("delete_callbacks behind a MessagingApprover: every refusal deletes nothing", () => {
  it.each(refusalCases)("$label -> $code", async (refusal) => {
    const deleteBodies: unknown[] = [];
    const sent: Array<Record<string, unknown>> = [];
    nockListCallbacks();
    const deleteScope = nockDeleteCallbacks(deleteBodies);
    (refusal.readiness ?? (() => nockReadiness()))();
    const send = nockSendQuestion(sent);
    refusal.messaging(sent);

    const { result, told } = await runDeletion(refusal.approverTimeoutMs);

    expect(deleteBodies).toEqual([]);
    expect(deleteScope.isDone()).toBe(false);
    expect(result.status).toBe("completed");
    const record = result.steps[0]?.toolCalls[0];
    expect(record).toMatchObject({
      status: "refused",
      approval: { outcome: "refused", code: refusal.code },
    });
    expect(told).toHaveLength(1);
    const message = JSON.parse(told?.[0]?.content ?? "") as Record<string, unknown>;
    expect(message).toEqual({
      error: "approval_refused",
      code: refusal.code,
      reason: expect.stringMatching(refusal.reason),
      message: expect.stringMatching(
        /^The call to delete_callbacks was not run: .*Do not retry the same call unless the user asks you to\.$/,
      ),
    });
    expect(result.output).toBe(`Nothing was deleted (${refusal.code}): ${message.reason}`);
    // A question goes out only when the approver can be reached.
    expect(send.isDone()).toBe(refusal.code !== "approver_unavailable");
    expect(JSON.stringify(result.messages)).not.toContain("keep-this-secret");
  });

  it.each(expiryCases)("$label -> expired, never a denial", async (expiry) => {
    const deleteBodies: unknown[] = [];
    const sent: Array<Record<string, unknown>> = [];
    nockListCallbacks();
    const deleteScope = nockDeleteCallbacks(deleteBodies);
    nockReadiness();
    nockSendQuestion(sent);
    expiry.messaging(sent);

    const { result, told } = await runDeletion(expiry.approverTimeoutMs);

    expect(deleteBodies).toEqual([]);
    expect(deleteScope.isDone()).toBe(false);
    const record = result.steps[0]?.toolCalls[0];
    expect(record).toMatchObject({
      status: "expired",
      approval: { outcome: "expired", reason: expect.stringMatching(expiry.reason) },
    });
    expect(record?.approval).not.toHaveProperty("code");
    const message = JSON.parse(told?.[0]?.content ?? "") as Record<string, unknown>;
    expect(message).toMatchObject({ error: "approval_expired" });
    expect(String(message.message)).toContain("This is not a refusal.");
    expect(String(message.message)).not.toMatch(/declined|denied/);
  });

  it("runs the deletion exactly once when the approver approves this very call", async () => {
    const deleteBodies: unknown[] = [];
    const sent: Array<Record<string, unknown>> = [];
    nockListCallbacks();
    nockDeleteCallbacks(deleteBodies);
    nockReadiness();
    nockSendQuestion(sent);
    nock(messagingOrigin)
      .get(interactionPath)
      .reply(200, interaction("pending"))
      .get(interactionPath)
      .reply(200, () =>
        interaction("answered", { optionId: "approve", fingerprint: sentFingerprint(sent) }),
      );

    const { result, told } = await runDeletion();

    expect(deleteBodies).toEqual([retiredIds]);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      status: "succeeded",
      approval: { outcome: "approved", interactionId: "i_1" },
    });
    expect(JSON.parse(told?.[0]?.content ?? "")).toEqual({
      deleted: 2,
      failed: 0,
      results: retiredIds.map((id) => ({ id, status: "success" })),
    });
    expect(result.output).toBe("Deleted 2 callbacks.");
    // The fingerprint covers where the call acts: this client's host, account and environment.
    const target = orderTools(makeOrderClient()).find(
      (tool) => tool.name === "delete_callbacks",
    )?.target;
    expect(target).toMatchObject({ service: "orders", environment: "production" });
    expect(sentFingerprint(sent)).toBe(
      actionFingerprint("delete_callbacks", { callback_ids: retiredIds }, target),
    );
    expect(sentFingerprint(sent)).not.toBe(
      actionFingerprint(
        "delete_callbacks",
        { callback_ids: retiredIds },
        { ...target, environment: "sandbox" },
      ),
    );
    const question = String(sent[0]?.text);
    expect(question).toContain(
      "Approval needed: Delete 2 callbacks: deliveries to these URLs stop at once and queued events are discarded",
    );
    expect(question).toContain(
      'Where: service "orders" at "orders.test.example", account "acme", environment "production" (PRODUCTION)',
    );
    expect(question).toContain(
      '- orderEvent callback to: "https://hooks.old-warehouse.example/acme/orders"',
    );
    expect(question).toContain(
      '- inboundShipmentEvent callback to: "https://hooks.old-warehouse.example/acme/asn"',
    );
    expect(question).toContain("This cannot be undone.");
    expect(nock.pendingMocks()).toEqual([]);
  });
});
