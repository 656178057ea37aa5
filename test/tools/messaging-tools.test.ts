import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/clients/messaging/messaging-client.js";
import { type MessagingSimulator, startMessagingSimulator } from "../../src/simulators/index.js";
import { messagingTools } from "../../src/tools/messaging/messaging-tools.js";
import type { AnyTool } from "../../src/tools/tool.js";
import { argumentIssues, callTool } from "./tool-test-kit.js";

let messaging: MessagingSimulator;
let client: MessagingClient;
let tools: AnyTool[];

beforeAll(async () => {
  messaging = await startMessagingSimulator({ deliveryStepMs: 1, answer: "never" });
  client = new MessagingClient({
    baseUrl: messaging.url,
    token: messaging.token,
    initialRetryDelayMs: 1,
  });
  tools = messagingTools(client);
});

beforeEach(() => {
  messaging.reset();
  messaging.setAnswer("never");
});

afterAll(() => messaging.close());

/** Calls the tool until `done` holds for its result (the simulator moves in milliseconds). */
async function callUntil(
  name: string,
  args: unknown,
  done: (result: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const result = await callTool(tools, name, args);
    if (done(result)) return result;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`${name} never reached the expected state`);
}

describe("send_notification and get_message_status", () => {
  it("sends a notification and follows its delivery", async () => {
    const sent = await callTool(tools, "send_notification", {
      subscription_link_id: messaging.approverLinkId,
      text: "The nightly callback cleanup finished.",
    });
    expect(sent).toEqual({ message_id: expect.any(String), state: "accepted" });
    expect(messaging.messages()[0]).toMatchObject({
      kind: "notification",
      text: "The nightly callback cleanup finished.",
    });
    const status = await callUntil(
      "get_message_status",
      { message_id: sent.message_id },
      (result) => result.state === "delivered",
    );
    expect(status).toEqual({ message_id: sent.message_id, state: "delivered" });
  });

  it("reports why a delivery failed, as an object the model will not mistake for a tool error", async () => {
    messaging.failNextDelivery("the device is offline");
    const sent = await callTool(tools, "send_notification", {
      subscription_link_id: messaging.approverLinkId,
      text: "Hello",
    });
    const status = await callUntil(
      "get_message_status",
      { message_id: sent.message_id },
      (result) => result.state === "failed",
    );
    expect(status).toEqual({
      message_id: sent.message_id,
      state: "failed",
      error: { code: "delivery_failed", message: "the device is offline" },
    });
  });

  it("fails with the service's reason when the link is not active", async () => {
    const pending = messaging.links().find((link) => link.state === "pending");
    await expect(
      callTool(tools, "send_notification", {
        subscription_link_id: pending?.subscription_link_id,
        text: "Hello",
      }),
    ).rejects.toThrow(/pending|active/);
  });

  it("checks the text and ids before sending anything", () => {
    expect(
      argumentIssues(tools, "send_notification", { subscription_link_id: " ", text: "" }),
    ).toEqual([
      "subscription_link_id: must not be empty: the id of the subscriber's active subscription link",
      "text: must not be empty: write what the person should read",
    ]);
    expect(
      argumentIssues(tools, "send_notification", {
        subscription_link_id: "sl",
        text: "x".repeat(4001),
      }),
    ).toEqual(["text: must be at most 4000 characters: shorten it"]);
    expect(argumentIssues(tools, "get_message_status", {})).toEqual([
      "message_id: must be a string: the message_id send_notification returned",
    ]);
    expect(messaging.requests).toHaveLength(0);
  });
});

describe("cancel_message", () => {
  it("cancels a message not yet delivered", async () => {
    const { messageId } = await client.sendMessage({
      subscriptionLinkId: messaging.approverLinkId,
      kind: "interaction",
      text: "Approve?",
      options: [
        { id: "approve", label: "Approve" },
        { id: "deny", label: "Deny" },
      ],
    });
    const result = await callTool(tools, "cancel_message", { message_id: messageId });
    expect(result).toEqual({ message_id: messageId, state: "canceled" });
    expect(messaging.message(messageId)?.state).toBe("canceled");
  });
});

describe("get_interaction", () => {
  async function askQuestion(): Promise<string> {
    const accepted = await client.sendMessage({
      subscriptionLinkId: messaging.approverLinkId,
      kind: "interaction",
      text: "Ship the backorder now?",
      options: [
        { id: "yes", label: "Yes" },
        { id: "no", label: "No" },
      ],
    });
    return accepted.interactionId as string;
  }

  it("reads a pending interaction and then its answer", async () => {
    const interactionId = await askQuestion();
    expect(await callTool(tools, "get_interaction", { interaction_id: interactionId })).toEqual({
      interaction_id: interactionId,
      state: "pending",
    });
    await callUntil(
      "get_message_status",
      { message_id: messaging.messages()[0]?.message_id },
      (r) => r.state === "delivered",
    );
    messaging.answerInteraction(interactionId, "yes", "go ahead");
    expect(await callTool(tools, "get_interaction", { interaction_id: interactionId })).toEqual({
      interaction_id: interactionId,
      state: "answered",
      answer: { option_id: "yes", text: "go ahead", answered_at: expect.any(String) },
    });
  });

  it("scrubs a secret a person pasted into their answer", async () => {
    const interactionId = await askQuestion();
    await callUntil(
      "get_message_status",
      { message_id: messaging.messages()[0]?.message_id },
      (r) => r.state === "delivered",
    );
    messaging.answerInteraction(
      interactionId,
      "no",
      "use eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl instead",
    );
    const result = await callTool(tools, "get_interaction", { interaction_id: interactionId });
    expect(result.answer).toMatchObject({ text: "use [redacted] instead" });
  });
});
