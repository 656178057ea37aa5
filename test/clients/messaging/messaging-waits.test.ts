import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import {
  AbortedError,
  ConfigurationError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
} from "../../../src/errors/index.js";
import { socketError } from "../../helpers/socket-error.js";

const base = "https://messaging.test";
const path = "/v1/interactions/i_1";
const fast = { pollIntervalMs: 2, maxPollIntervalMs: 10 };

function makeClient(maxRetries = 0) {
  return new MessagingClient({
    baseUrl: base,
    token: "wait-token-1234",
    maxRetries,
    initialRetryDelayMs: 1,
  });
}

function interaction(state: string, extra: Record<string, unknown> = {}) {
  return { interaction_id: "i_1", message_id: "m_1", state, ...extra };
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});

afterEach(() => {
  nock.cleanAll();
});

describe("waitForInteraction", () => {
  it("polls while pending and returns the answer", async () => {
    const scope = nock(base)
      .get(path)
      .times(2)
      .reply(200, interaction("pending"))
      .get(path)
      .reply(
        200,
        interaction("answered", {
          answer: { option_id: "approve", answered_at: "2025-01-01T00:00:00Z" },
        }),
      );
    const outcome = await makeClient().waitForInteraction("i_1", { timeoutMs: 5_000, ...fast });
    expect(scope.isDone()).toBe(true);
    expect(outcome.status).toBe("answered");
    if (outcome.status !== "answered") throw new Error("unreachable");
    expect(outcome.interaction.answer).toEqual({
      optionId: "approve",
      answeredAt: "2025-01-01T00:00:00Z",
    });
  });

  it.each([
    ["expired", "expired"],
    ["canceled", "canceled"],
    ["cancelled", "canceled"],
    ["failed", "failed"],
  ])("returns %s as a terminal outcome without an answer", async (wireState, status) => {
    nock(base)
      .get(path)
      .reply(200, interaction("pending"))
      .get(path)
      .reply(200, interaction(wireState));
    const outcome = await makeClient().waitForInteraction("i_1", { timeoutMs: 5_000, ...fast });
    expect(outcome).toEqual({
      status,
      interaction: { interactionId: "i_1", messageId: "m_1", state: status },
    });
  });

  it("keeps polling through an unknown state", async () => {
    nock(base)
      .get(path)
      .reply(200, interaction("queued"))
      .get(path)
      .reply(200, interaction("answered", { answer: { option_id: "deny" } }));
    const outcome = await makeClient().waitForInteraction("i_1", { timeoutMs: 5_000, ...fast });
    expect(outcome.status).toBe("answered");
  });

  it("returns timeout with the last interaction read, without throwing", async () => {
    nock(base).get(path).times(1_000).reply(200, interaction("pending"));
    // The interaction stays pending: only the 60 ms limit can end the wait.
    const outcome = await makeClient().waitForInteraction("i_1", { timeoutMs: 60, ...fast });
    expect(outcome).toEqual({
      status: "timeout",
      lastInteraction: { interactionId: "i_1", messageId: "m_1", state: "pending" },
    });
  });

  it("throws AbortedError when the signal fires while waiting", async () => {
    nock(base).get(path).times(1_000).reply(200, interaction("pending"));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("run stopped")), 30);
    const error = await makeClient()
      .waitForInteraction("i_1", { timeoutMs: 10_000, signal: controller.signal, ...fast })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AbortedError);
  });

  it("throws AbortedError at once for an already aborted signal", async () => {
    const scope = nock(base).get(path).reply(200, interaction("pending"));
    const controller = new AbortController();
    controller.abort();
    await expect(
      makeClient().waitForInteraction("i_1", { timeoutMs: 1_000, signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(scope.isDone()).toBe(false);
  });

  it("rides out transient failures and still returns the answer", async () => {
    nock(base)
      .get(path)
      .reply(503)
      .get(path)
      .replyWithError(socketError("socket hang up"))
      .get(path)
      .reply(200, interaction("answered", { answer: { option_id: "approve" } }));
    const outcome = await makeClient().waitForInteraction("i_1", { timeoutMs: 5_000, ...fast });
    expect(outcome.status).toBe("answered");
  });

  it("returns error after persistent 5xx, once maxConsecutiveErrors polls failed", async () => {
    const scope = nock(base)
      .get(path)
      .reply(200, interaction("pending"))
      .get(path)
      .times(3)
      .reply(500, { error: { message: "database down" } });
    const outcome = await makeClient().waitForInteraction("i_1", { timeoutMs: 10_000, ...fast });
    expect(scope.isDone()).toBe(true);
    expect(outcome.status).toBe("error");
    if (outcome.status !== "error") throw new Error("unreachable");
    expect(outcome.error).toBeInstanceOf(InternalServerError);
    expect(outcome.error.message).toMatch(/database down/);
    expect(outcome.lastInteraction?.state).toBe("pending");
  });

  it("returns error, not timeout, when the service is still failing at the deadline", async () => {
    nock(base).get(path).times(1_000).replyWithError(socketError("reset"));
    const outcome = await makeClient().waitForInteraction("i_1", {
      timeoutMs: 60,
      maxConsecutiveErrors: 1_000,
      ...fast,
    });
    expect(outcome.status).toBe("error");
    if (outcome.status !== "error") throw new Error("unreachable");
    expect(outcome.error).toBeInstanceOf(ConnectionError);
    expect(outcome).not.toHaveProperty("lastInteraction");
  });

  it("returns error at once for a failure that will not fix itself", async () => {
    const scope = nock(base)
      .get(path)
      .times(2)
      .reply(404, { error: { message: "no such interaction" } });
    const outcome = await makeClient().waitForInteraction("i_1", { timeoutMs: 5_000, ...fast });
    expect(outcome.status).toBe("error");
    if (outcome.status !== "error") throw new Error("unreachable");
    expect(outcome.error).toBeInstanceOf(NotFoundError);
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("rejects bad wait options, naming each", async () => {
    const error = await makeClient()
      .waitForInteraction("i_1", { timeoutMs: 0, pollIntervalMs: -1, backoffFactor: 0.5 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems.join("\n");
    expect(problems).toMatch(/timeoutMs/);
    expect(problems).toMatch(/pollIntervalMs/);
    expect(problems).toMatch(/backoffFactor/);
    await expect(makeClient().waitForInteraction("..", { timeoutMs: 100 })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });
});

describe("waitForSubscription", () => {
  const linkPath = "/v1/subscription-links/sl_1";
  const link = (state: string) => ({
    subscription_link_id: "sl_1",
    url: "https://m.test/c",
    state,
  });

  it("polls until the subscriber activates the link", async () => {
    const scope = nock(base)
      .get(linkPath)
      .times(2)
      .reply(200, link("pending"))
      .get(linkPath)
      .reply(200, link("active"));
    const outcome = await makeClient().waitForSubscription("sl_1", { timeoutMs: 5_000, ...fast });
    expect(scope.isDone()).toBe(true);
    expect(outcome).toEqual({
      status: "active",
      link: { subscriptionLinkId: "sl_1", url: "https://m.test/c", state: "active" },
    });
  });

  it.each(["expired", "revoked"])("returns %s as an ended link", async (state) => {
    nock(base).get(linkPath).reply(200, link(state));
    const outcome = await makeClient().waitForSubscription("sl_1", { timeoutMs: 5_000, ...fast });
    expect(outcome.status).toBe(state);
  });

  it("returns timeout while the link stays pending", async () => {
    nock(base).get(linkPath).times(1_000).reply(200, link("pending"));
    const outcome = await makeClient().waitForSubscription("sl_1", { timeoutMs: 50, ...fast });
    expect(outcome.status).toBe("timeout");
    if (outcome.status !== "timeout") throw new Error("unreachable");
    expect(outcome.lastLink?.state).toBe("pending");
  });

  it("returns error when the link cannot be read", async () => {
    nock(base).get(linkPath).times(3).reply(502, "bad gateway");
    const outcome = await makeClient().waitForSubscription("sl_1", { timeoutMs: 5_000, ...fast });
    expect(outcome.status).toBe("error");
  });
});
