import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import type { SendMessageInput } from "../../../src/clients/messaging/messaging-requests.js";
import {
  AbortedError,
  type ApiError,
  ConfigurationError,
  InternalServerError,
} from "../../../src/errors/index.js";
import { UnexpectedAnswerError } from "../../../src/errors/unexpected-answer-error.js";
import { errorFamilies } from "../../helpers/error-families.js";
import { socketError } from "../../helpers/socket-error.js";

const base = "https://messaging.test";
const token = "msg-token-5f2a9c71";

function makeClient(options: Partial<ConstructorParameters<typeof MessagingClient>[0]> = {}) {
  return new MessagingClient({ baseUrl: base, token, initialRetryDelayMs: 1, ...options });
}

const interactionInput = {
  subscriptionLinkId: "sl_1",
  kind: "interaction" as const,
  text: "Cancel order 1042?",
  options: [
    { id: "approve", label: "Approve" },
    { id: "deny", label: "Deny" },
  ],
  expiresInSeconds: 600,
  metadata: { fingerprint: "sha256:abc" },
};

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});

afterEach(() => {
  nock.cleanAll();
});

describe("MessagingClient endpoints", () => {
  it("reads capabilities with the bearer token and keeps unknown fields", async () => {
    nock(base)
      .get("/v1/capabilities")
      .matchHeader("authorization", `Bearer ${token}`)
      .reply(200, { features: ["notifications", "interactions", 7], provider: "chat" });
    const capabilities = await makeClient().getCapabilities();
    expect(capabilities).toEqual({ features: ["notifications", "interactions"], provider: "chat" });
  });

  it("sends no authorization header when no token is configured", async () => {
    let authorization: string | undefined = "unset";
    nock(base)
      .get("/v1/capabilities")
      .reply(function () {
        authorization = this.req.headers.authorization;
        return [200, { features: [] }];
      });
    const client = new MessagingClient({ baseUrl: base });
    await client.getCapabilities();
    expect(authorization).toBeUndefined();
  });

  it("creates a subscription link with the snake_case body", async () => {
    let sent: unknown;
    nock(base)
      .post("/v1/subscription-links", (body) => {
        sent = body;
        return true;
      })
      .reply(201, { subscription_link_id: "sl_9", url: "https://m.test/c/abc", state: "pending" });
    const link = await makeClient().createSubscriptionLink({
      label: "ops",
      expiresInSeconds: 3600,
    });
    expect(sent).toEqual({ label: "ops", expires_in_s: 3600 });
    expect(link).toEqual({
      subscriptionLinkId: "sl_9",
      url: "https://m.test/c/abc",
      state: "pending",
    });
  });

  it("does not retry a link creation after a 5xx, which could create two links", async () => {
    const scope = nock(base)
      .post("/v1/subscription-links")
      .reply(503, { error: { message: "busy" } })
      .post("/v1/subscription-links")
      .reply(201, { subscription_link_id: "sl_2", state: "pending" });
    await expect(makeClient().createSubscriptionLink()).rejects.toBeInstanceOf(InternalServerError);
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("reads a subscription link and encodes its id into the path", async () => {
    nock(base)
      .get("/v1/subscription-links/sl%2F..%2Fx%20y")
      .reply(200, { subscription_link_id: "sl/../x y", url: "https://m.test/c", state: "active" });
    const link = await makeClient().getSubscriptionLink("sl/../x y");
    expect(link.state).toBe("active");
    expect(link.subscriptionLinkId).toBe("sl/../x y");
  });

  it("rejects ids that are empty or would change the path, before sending", async () => {
    const client = makeClient();
    for (const id of ["", "  ", "..", "."]) {
      await expect(client.getSubscriptionLink(id)).rejects.toBeInstanceOf(ConfigurationError);
    }
    await expect(client.getMessage(42 as unknown as string)).rejects.toThrow(
      /message_id must be a string id/,
    );
  });

  it("sends an interaction with an Idempotency-Key and returns the key", async () => {
    let sent: unknown;
    let key: string | undefined;
    nock(base)
      .post("/v1/messages", (body) => {
        sent = body;
        return true;
      })
      .reply(function () {
        key = this.req.headers["idempotency-key"];
        return [202, { message_id: "m_1", interaction_id: "i_1", state: "accepted" }];
      });
    const accepted = await makeClient().sendMessage(interactionInput);
    expect(sent).toEqual({
      subscription_link_id: "sl_1",
      kind: "interaction",
      text: "Cancel order 1042?",
      options: [
        { id: "approve", label: "Approve" },
        { id: "deny", label: "Deny" },
      ],
      expires_in_s: 600,
      metadata: { fingerprint: "sha256:abc" },
    });
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(accepted).toEqual({
      messageId: "m_1",
      interactionId: "i_1",
      state: "accepted",
      idempotencyKey: key,
    });
  });

  it("sends a notification without options", async () => {
    let sent: unknown;
    nock(base)
      .post("/v1/messages", (body) => {
        sent = body;
        return true;
      })
      .reply(202, { message_id: "m_2" });
    const accepted = await makeClient().sendMessage({
      subscriptionLinkId: "sl_1",
      kind: "notification",
      text: "Deploy finished",
    });
    expect(sent).toEqual({
      subscription_link_id: "sl_1",
      kind: "notification",
      text: "Deploy finished",
    });
    expect(accepted.state).toBe("accepted");
    expect(accepted.interactionId).toBeUndefined();
  });

  it("reuses one Idempotency-Key across a 503 retry and uses a new one per message", async () => {
    const keys: (string | undefined)[] = [];
    nock(base)
      .post("/v1/messages")
      .times(3)
      .reply(function () {
        keys.push(this.req.headers["idempotency-key"]);
        return keys.length === 1
          ? [503, { error: { message: "try later" } }]
          : [202, { message_id: `m_${keys.length}`, state: "accepted" }];
      });
    const client = makeClient();
    const first = await client.sendMessage(interactionInput);
    const second = await client.sendMessage(interactionInput);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toBeDefined();
    expect(keys[1]).toBe(keys[0]);
    expect(first.idempotencyKey).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(second.idempotencyKey).toBe(keys[2]);
  });

  it("reuses a caller-supplied idempotency key across a dropped connection", async () => {
    const keys: (string | undefined)[] = [];
    nock(base)
      .post("/v1/messages")
      .replyWithError(socketError("socket hang up"))
      .post("/v1/messages")
      .reply(function () {
        keys.push(this.req.headers["idempotency-key"]);
        return [202, { message_id: "m_1" }];
      });
    const accepted = await makeClient().sendMessage(interactionInput, {
      idempotencyKey: "approval-42",
    });
    expect(keys).toEqual(["approval-42"]);
    expect(accepted.idempotencyKey).toBe("approval-42");
  });

  it("reports every problem of a bad message at once and sends nothing", async () => {
    const client = makeClient();
    const error = await client
      .sendMessage({
        subscriptionLinkId: "",
        kind: "interaction",
        text: "  ",
        options: [
          { id: "yes", label: "Yes" },
          { id: "yes", label: "" },
        ],
        expiresInSeconds: 1.5,
        metadata: [] as unknown as Record<string, unknown>,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems.join("\n");
    expect(problems).toMatch(/subscriptionLinkId/);
    expect(problems).toMatch(/text must be a non-empty string/);
    expect(problems).toMatch(/options\[1\]\.id "yes" is used twice/);
    expect(problems).toMatch(/options\[1\]\.label/);
    expect(problems).toMatch(/expiresInSeconds must be a positive whole number, got 1.5/);
    expect(problems).toMatch(/metadata must be a JSON object/);
  });

  it.each([
    [{ ...interactionInput, options: [{ id: "approve", label: "Approve" }] }, /at least two/],
    [{ ...interactionInput, options: undefined }, /at least two/],
    [{ ...interactionInput, kind: "notification" as const }, /only for kind "interaction"/],
    [{ ...interactionInput, kind: "sms" as unknown as "notification" }, /kind "sms"/],
    [{ ...interactionInput, expiresInSeconds: 0 }, /expiresInSeconds/],
  ])("rejects a bad message input %#", async (input, pattern) => {
    await expect(makeClient().sendMessage(input as SendMessageInput)).rejects.toThrow(pattern);
  });

  it("rejects a bad idempotency key or timeout", async () => {
    const client = makeClient();
    await expect(
      client.sendMessage(interactionInput, { idempotencyKey: "has space" }),
    ).rejects.toThrow(/idempotencyKey must be/);
    await expect(client.getMessage("m_1", { timeoutMs: -5 })).rejects.toThrow(
      /timeoutMs must be a positive whole number/,
    );
  });

  it("reads a message, keeping extra fields and a plain-text delivery error", async () => {
    nock(base).get("/v1/messages/m_1").reply(200, {
      message_id: "m_1",
      interaction_id: 77,
      state: "failed",
      error: "subscriber blocked the bot",
      attempts: 3,
    });
    const message = await makeClient().getMessage("m_1");
    expect(message).toEqual({
      messageId: "m_1",
      interactionId: "77",
      state: "failed",
      error: { message: "subscriber blocked the bot" },
      attempts: 3,
    });
  });

  it("reads the British spelling of canceled and a structured error", async () => {
    nock(base)
      .get("/v1/messages/m_1")
      .reply(200, { state: "Cancelled", error: { code: "by_user", message: "stopped", at: 5 } });
    const message = await makeClient().getMessage("m_1");
    expect(message).toEqual({
      messageId: "m_1",
      state: "canceled",
      error: { code: "by_user", message: "stopped", at: 5 },
    });
  });

  it("cancels a message, retrying a 503 because a second cancel changes nothing", async () => {
    nock(base)
      .post("/v1/messages/m_1/cancel")
      .reply(503)
      .post("/v1/messages/m_1/cancel")
      .reply(200, { message_id: "m_1", state: "canceled" });
    expect(await makeClient().cancelMessage("m_1")).toEqual({
      messageId: "m_1",
      state: "canceled",
    });
  });

  it("accepts an empty answer to a cancellation", async () => {
    nock(base).post("/v1/messages/m_1/cancel").reply(202);
    expect(await makeClient().cancelMessage("m_1")).toEqual({ messageId: "m_1" });
  });

  it("reads an answered interaction", async () => {
    nock(base)
      .get("/v1/interactions/i_1")
      .reply(200, {
        interaction_id: "i_1",
        message_id: "m_1",
        state: "answered",
        answer: { option_id: "approve", text: "ok", answered_at: 1_700_000_000, by: "ana" },
        channel: "chat",
      });
    const interaction = await makeClient().getInteraction("i_1");
    expect(interaction).toEqual({
      interactionId: "i_1",
      messageId: "m_1",
      state: "answered",
      answer: {
        optionId: "approve",
        text: "ok",
        answeredAt: "2023-11-14T22:13:20.000Z",
        by: "ana",
      },
      channel: "chat",
    });
  });

  it("throws UnexpectedAnswerError naming what is missing from an answer", async () => {
    nock(base).get("/v1/interactions/i_1").reply(200, { interaction_id: "i_1", answer: "yes" });
    nock(base).get("/v1/interactions/i_2").reply(200, [1, 2]);
    const client = makeClient();
    const error = await client.getInteraction("i_1").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    expect((error as UnexpectedAnswerError).problems).toEqual([
      "state is missing, expected a state name",
      "answer is a string, expected a JSON object",
    ]);
    expect((error as Error).message).toContain(`GET ${base}/v1/interactions/i_1`);
    await expect(client.getInteraction("i_2")).rejects.toThrow(/the body is an array/);
  });

  it("honours a caller's abort", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      makeClient().getMessage("m_1", { signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortedError);
  });
});

describe("MessagingClient errors and retries", () => {
  it.each(errorFamilies)(
    "maps %i to its error class with status, method, url and body",
    async (status, type) => {
      nock(base)
        .get("/v1/messages/m_1")
        .reply(
          status,
          { error: { code: "oops", message: `failed ${status}` } },
          {
            "x-request-id": "req-1",
          },
        );
      const error = await makeClient({ maxRetries: 0 })
        .getMessage("m_1")
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(type);
      const apiError = error as ApiError;
      expect(apiError.status).toBe(status);
      expect(apiError.method).toBe("GET");
      expect(apiError.url).toBe(`${base}/v1/messages/m_1`);
      expect(apiError.body).toEqual({ error: { code: "oops", message: `failed ${status}` } });
      expect(apiError.requestId).toBe("req-1");
      expect(apiError.message).toContain(`failed ${status}`);
    },
  );

  it("retries a 429 after Retry-After and then succeeds", async () => {
    const scope = nock(base)
      .get("/v1/capabilities")
      .reply(429, { error: { message: "slow down" } }, { "retry-after": "0" })
      .get("/v1/capabilities")
      .reply(200, { features: ["notifications"] });
    expect(await makeClient().getCapabilities()).toEqual({ features: ["notifications"] });
    expect(scope.isDone()).toBe(true);
  });

  it("gives up after maxRetries and reports the last failure", async () => {
    const scope = nock(base).get("/v1/capabilities").times(3).reply(502, "bad gateway");
    const error = await makeClient({ maxRetries: 2 })
      .getCapabilities()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as ApiError).bodyText).toBe("bad gateway");
    expect(scope.isDone()).toBe(true);
  });
});

describe("MessagingClient configuration", () => {
  it("uses overridden routes", async () => {
    nock(base).get("/api/msg/m_1").reply(200, { message_id: "m_1", state: "sent" });
    const client = makeClient({ routes: { getMessage: { path: "/api/msg/{message_id}" } } });
    expect((await client.getMessage("m_1")).state).toBe("sent");
    expect(client.routes.getMessage).toEqual({ method: "GET", path: "/api/msg/{message_id}" });
    expect(client.routes.sendMessage).toEqual({ method: "POST", path: "/v1/messages" });
  });

  it("rejects route overrides that lose a placeholder or name no operation", () => {
    let error: unknown;
    try {
      makeClient({
        routes: { getMessage: { path: "/api/msg" }, sendMesage: { path: "/x" } } as never,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems;
    expect(problems).toHaveLength(2);
    expect(problems.join("\n")).toMatch(/sendMesage is not a messaging operation/);
    expect(problems.join("\n")).toMatch(/getMessage\.path "\/api\/msg" lacks the \{message_id\}/);
  });

  it("refuses plain http to a remote host and a malformed token without echoing it", () => {
    expect(() => new MessagingClient({ baseUrl: "http://messaging.test" })).toThrow(
      ConfigurationError,
    );
    let error: unknown;
    try {
      makeClient({ token: `${token}\nX-Evil: 1` });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).not.toContain(token);
  });

  it("exposes the base URL", () => {
    expect(makeClient().baseUrl).toBe(`${base}/`);
  });
});
