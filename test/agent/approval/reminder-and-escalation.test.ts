import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { ConfigurationError } from "../../../src/errors/index.js";
import { silentLogger } from "../../../src/internal/logger.js";
import { type MessagingSimulator, startMessagingSimulator } from "../../../src/simulators/index.js";
import { askOne } from "../../helpers/approver-verbs.js";
import { deleteCallbacksAction } from "./approval-test-helpers.js";

let messaging: MessagingSimulator;
let client: MessagingClient;

beforeAll(async () => {
  messaging = await startMessagingSimulator({ answer: "never", deliveryStepMs: 1 });
  client = new MessagingClient({ baseUrl: messaging.url, token: messaging.token });
});

afterAll(() => messaging.close());
beforeEach(() => messaging.reset());

const context = () => ({ signal: new AbortController().signal, logger: silentLogger() });

/** Resolves when the simulator holds an interaction that `matches`. */
async function untilInteraction(matches: (link: string) => boolean) {
  for (;;) {
    const found = messaging
      .interactions()
      .find((interaction) =>
        matches(messaging.message(interaction.message_id)!.subscription_link_id),
      );
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("MessagingApprover: escalation and reminders, against the simulator", () => {
  it("moves an unanswered question to the second approver; the first one's late answer approves nothing", async () => {
    const second = await client.createSubscriptionLink({ label: "on-call lead" });
    messaging.activateLink(second.subscriptionLinkId);
    const approver = new MessagingApprover({
      client,
      subscriptionLinkId: messaging.approverLinkId,
      timeoutMs: 30_000,
      pollIntervalMs: 5,
      maxPollIntervalMs: 10,
      escalation: { subscriptionLinkId: second.subscriptionLinkId, afterMs: 100 },
    });
    const action = deleteCallbacksAction();
    const deciding = askOne(approver, action, context()).then(({ decision }) => decision);

    const escalated = await untilInteraction((link) => link === second.subscriptionLinkId);
    const first = messaging
      .interactions()
      .find((interaction) => interaction.interaction_id !== escalated.interaction_id)!;
    expect(messaging.interaction(first.interaction_id)?.state).toBe("canceled");
    // The first approver answers late: the withdrawn question cannot be answered.
    expect(() => messaging.answerInteraction(first.interaction_id, "approve")).toThrow();
    messaging.answerInteraction(escalated.interaction_id, "approve", "covering for ops");

    const decision = await deciding;
    expect(decision).toMatchObject({
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId: escalated.interaction_id,
      approverLink: second.subscriptionLinkId,
      approvedBy: `subscription link ${second.subscriptionLinkId}`,
      note: "covering for ops",
    });
    // The same question, word for word, went to both.
    const texts = messaging.messages().map((message) => message.text);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe(texts[1]);
  });

  it("reminds the approver before the question expires, and the expiry stays an expiry", async () => {
    const approver = new MessagingApprover({
      client,
      subscriptionLinkId: messaging.approverLinkId,
      timeoutMs: 400,
      reminderBeforeExpiryMs: 300,
      pollIntervalMs: 5,
      maxPollIntervalMs: 10,
    });
    const { decision } = await askOne(approver, deleteCallbacksAction(), context());
    expect(decision.outcome).toBe("expired");
    const sent = messaging.messages();
    expect(sent.map((message) => message.kind)).toEqual(["interaction", "notification"]);
    expect(sent[1]).toMatchObject({ subscription_link_id: messaging.approverLinkId });
    expect(sent[1]?.text).toMatch(
      /^Reminder: the approval question about delete_callbacks is still waiting for your answer\. It expires in /,
    );
  });

  it("names each bad escalation option", () => {
    expect(
      () =>
        new MessagingApprover({
          client,
          subscriptionLinkId: "sl_1",
          escalation: { subscriptionLinkId: "sl_1", afterMs: 0 },
        }),
    ).toThrow(ConfigurationError);
    expect(
      () =>
        new MessagingApprover({
          client,
          subscriptionLinkId: "sl_1",
          escalation: { subscriptionLinkId: "sl_1", afterMs: 10 },
        }),
    ).toThrow(/escalation.subscriptionLinkId must be another link/);
  });
});
