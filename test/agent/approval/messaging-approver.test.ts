import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { AbortedError, ConfigurationError } from "../../../src/errors/index.js";
import { textDigest } from "../../../src/internal/canonical-json.js";
import { askOne } from "../../helpers/approver-verbs.js";
import {
  answered,
  base,
  cancelPath,
  deleteCallbacksAction,
  interaction,
  interactionId,
  interactionPath,
  linkId,
  makeApprover,
  makeClient,
  makeContext,
  messageId,
  messagePath,
  nockReady,
  nockSend,
} from "./approval-test-helpers.js";

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

describe("MessagingApprover: one action asked, its answer read", () => {
  it("approves only after the person answers approve, sending one interaction for the action", async () => {
    const action = deleteCallbacksAction();
    const sent: Record<string, unknown>[] = [];
    nockReady();
    nockSend(sent);
    const answers = nock(base)
      .get(interactionPath)
      .reply(200, interaction("pending"))
      .get(interactionPath)
      .reply(200, answered("approve", { fingerprint: action.fingerprint }));

    const decision = (await askOne(makeApprover(), action, makeContext({ runId: "run_7" })))
      .decision;

    expect(decision).toEqual({
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId,
      approvedBy: `subscription link ${linkId}`,
      approverLink: linkId,
      questionDigest: textDigest(String(sent[0]?.text)),
    });
    expect(answers.isDone()).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      subscription_link_id: linkId,
      kind: "interaction",
      options: [
        { id: "approve", label: "Approve" },
        { id: "deny", label: "Deny" },
      ],
      expires_in_s: 2,
      metadata: {
        fingerprint: action.fingerprint,
        tool: "delete_callbacks",
        tool_call_id: "call_1",
        run_id: "run_7",
      },
    });
    const text = String(sent[0]?.text);
    expect(text).toContain("Delete 2 callbacks from the production account.");
    expect(text).toContain("https://hooks.example.com/orders (order_shipped)");
    expect(text).toContain("This cannot be undone.");
    expect(text).toContain("Reply approve or deny.");
  });

  it.each([
    [
      "a deny, with the person's note",
      answered("deny", { text: "not during the sale" }),
      "denied",
      /denied "delete_callbacks".*not during the sale/,
    ],
    ["a cancelled question", interaction("cancelled"), "canceled", /cancelled before anyone/],
    [
      "an answer without an option",
      answered(undefined, { text: "ok" }),
      "unreadable_answer",
      /no option/,
    ],
    [
      "an option that was not offered",
      answered("Approve"),
      "unreadable_answer",
      /"Approve", which was not offered/,
    ],
  ])("refuses %s", async (_name, reply, code, reason) => {
    nockReady();
    nockSend();
    nock(base).get(interactionPath).reply(200, reply);
    const decision = (await askOne(makeApprover(), deleteCallbacksAction(), makeContext()))
      .decision;
    expect(decision).toMatchObject({ outcome: "refused", code, interactionId });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toMatch(reason);
  });

  it("refuses a failed delivery, naming the delivery error the message carries", async () => {
    nockReady();
    nockSend();
    nock(base)
      .get(interactionPath)
      .reply(200, interaction("failed"))
      .get(messagePath)
      .reply(200, {
        message_id: messageId,
        state: "failed",
        error: { code: "recipient_blocked", message: "the subscriber blocked the bot" },
      });
    const decision = (await askOne(makeApprover(), deleteCallbacksAction(), makeContext()))
      .decision;
    expect(decision).toMatchObject({ outcome: "refused", code: "delivery_failed" });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("recipient_blocked: the subscriber blocked the bot");
  });

  it("refuses an answer whose metadata names other arguments", async () => {
    const action = deleteCallbacksAction();
    const other = deleteCallbacksAction({ callback_ids: ["another"] });
    nockReady();
    nockSend();
    nock(base)
      .get(interactionPath)
      .reply(200, answered("approve", { fingerprint: other.fingerprint }));
    const decision = (await askOne(makeApprover(), action, makeContext())).decision;
    expect(decision).toMatchObject({ outcome: "refused", code: "fingerprint_mismatch" });
  });

  it("reads an expired question as expired, its own outcome, never a denial", async () => {
    nockReady();
    nockSend();
    nock(base).get(interactionPath).reply(200, interaction("expired"));
    const decision = (await askOne(makeApprover(), deleteCallbacksAction(), makeContext()))
      .decision;
    expect(decision).toEqual({
      outcome: "expired",
      reason: expect.stringMatching(/expired before anyone answered/),
      interactionId,
      approverLink: linkId,
      questionDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
  });

  it("gives the note written with an approval to the agent", async () => {
    nockReady();
    nockSend();
    nock(base)
      .get(interactionPath)
      .reply(200, answered("approve", { text: "fine, but only these two" }));
    const decision = (await askOne(makeApprover(), deleteCallbacksAction(), makeContext()))
      .decision;
    expect(decision).toMatchObject({ outcome: "approved", note: "fine, but only these two" });
  });

  it("expires after the timeout (not a refusal) and cancels the question", async () => {
    nockReady();
    nockSend();
    nock(base).persist().get(interactionPath).reply(200, interaction("pending"));
    const reads = nock(base)
      .get(messagePath)
      .reply(200, { message_id: messageId, state: "delivered" });
    const cancel = nock(base)
      .post(cancelPath)
      .reply(200, { message_id: messageId, state: "canceled" });

    const { decision } = await askOne(
      makeApprover({ timeoutMs: 80 }),
      deleteCallbacksAction(),
      makeContext(),
    );

    expect(decision).toMatchObject({ outcome: "expired", interactionId });
    if (decision.outcome !== "expired") throw new Error("unreachable");
    expect(decision.reason).toMatch(/No answer .* came within 80 ms/);
    expect(reads.isDone()).toBe(true);
    expect(cancel.isDone()).toBe(true);
  });

  it("reports a message that failed while the interaction stayed pending as a delivery failure", async () => {
    nockReady();
    nockSend();
    nock(base).persist().get(interactionPath).reply(200, interaction("pending"));
    nock(base)
      .get(messagePath)
      .reply(200, { message_id: messageId, state: "failed", error: "chat not found" });
    const { decision } = await askOne(
      makeApprover({ timeoutMs: 50 }),
      deleteCallbacksAction(),
      makeContext(),
    );
    expect(decision).toMatchObject({ outcome: "refused", code: "delivery_failed" });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("chat not found");
  });

  it("refuses when the service keeps failing while waiting, and cancels the question", async () => {
    nockReady();
    nockSend();
    nock(base)
      .get(interactionPath)
      .times(3)
      .reply(503, { error: { message: "overloaded" } });
    const cancel = nock(base)
      .post(cancelPath)
      .reply(200, { message_id: messageId, state: "canceled" });
    const decision = (await askOne(makeApprover(), deleteCallbacksAction(), makeContext()))
      .decision;
    expect(decision).toMatchObject({ outcome: "refused", code: "messaging_error" });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("503");
    expect(cancel.isDone()).toBe(true);
  });

  it("refuses when the question cannot be sent, without a token in the reason", async () => {
    nockReady();
    nock(base).post("/v1/messages").reply(500, "upstream down");
    const decision = (await askOne(makeApprover(), deleteCallbacksAction(), makeContext()))
      .decision;
    expect(decision).toMatchObject({ outcome: "refused", code: "messaging_error" });
    if (decision.outcome !== "refused") throw new Error("unreachable");
    expect(decision.reason).toContain("could not be sent");
    expect(decision.reason).not.toContain("messaging-token-5678");
  });

  it("cancels the question and throws AbortedError when the run is aborted while waiting", async () => {
    const controller = new AbortController();
    nockReady();
    nockSend();
    nock(base)
      .persist()
      .get(interactionPath)
      .reply(200, () => {
        setTimeout(() => controller.abort(), 5);
        return interaction("pending");
      });
    const cancel = nock(base)
      .post(cancelPath)
      .reply(200, { message_id: messageId, state: "canceled" });
    await expect(
      askOne(
        makeApprover(),
        deleteCallbacksAction(),
        makeContext({ signal: controller.signal }),
      ).then(({ decision }) => decision),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(cancel.isDone()).toBe(true);
  });

  it("throws AbortedError without sending anything when the signal has already fired", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      askOne(
        makeApprover(),
        deleteCallbacksAction(),
        makeContext({ signal: controller.signal }),
      ).then(({ decision }) => decision),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(nock.pendingMocks()).toEqual([]);
  });
});

describe("MessagingApprover options", () => {
  it("names every bad option", () => {
    let caught: unknown;
    try {
      new MessagingApprover({
        client: { getCapabilities() {} } as never,
        subscriptionLinkId: " ",
        timeoutMs: -1,
        pollIntervalMs: 1.5,
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    const problems = (caught as ConfigurationError).problems.join("\n");
    expect(problems).toContain("client lacks the method(s) getSubscriptionLink");
    expect(problems).toContain("subscriptionLinkId must be the id");
    expect(problems).toContain("POST /v1/subscription-links");
    expect(problems).toContain("timeoutMs must be a positive whole number");
    expect(problems).toContain("pollIntervalMs must be a positive whole number");
  });

  it("derives the message expiry from timeoutMs, or takes it as given", async () => {
    const sent: Record<string, unknown>[] = [];
    nockReady();
    nockSend(sent);
    nock(base).get(interactionPath).reply(200, answered("approve"));
    await askOne(makeApprover({ timeoutMs: 600_000 }), deleteCallbacksAction(), makeContext());
    nockReady();
    nockSend(sent);
    nock(base).get(interactionPath).reply(200, answered("approve"));
    await askOne(
      new MessagingApprover({
        client: makeClient(),
        subscriptionLinkId: linkId,
        messageExpiresInSeconds: 3600,
      }),
      deleteCallbacksAction(),
      makeContext(),
    );
    expect(sent.map((body) => body.expires_in_s)).toEqual([600, 3600]);
  });

  it("gives a suspended run's question a day, or the pendingExpiresInSeconds given", async () => {
    const sent: Record<string, unknown>[] = [];
    nockReady();
    nockSend(sent);
    await makeApprover({ timeoutMs: 600_000 }).ask(
      [deleteCallbacksAction()],
      makeContext({ allowPending: true }),
    );
    nockReady();
    nockSend(sent);
    await new MessagingApprover({
      client: makeClient(),
      subscriptionLinkId: linkId,
      pendingExpiresInSeconds: 7200,
    }).ask([deleteCallbacksAction()], makeContext({ allowPending: true }));
    expect(sent.map((body) => body.expires_in_s)).toEqual([86_400, 7200]);
  });
});
