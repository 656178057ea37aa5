import { afterEach, describe, expect, it } from "vitest";
import {
  type MessagingSimulator,
  type MessagingSimulatorOptions,
  startMessagingSimulator,
} from "../../src/simulators/messaging/messaging-simulator.js";

let messaging: MessagingSimulator | undefined;
afterEach(async () => {
  await messaging?.close();
  messaging = undefined;
});

async function start(options: MessagingSimulatorOptions = {}): Promise<MessagingSimulator> {
  messaging = await startMessagingSimulator({ answerDelayMs: 5, deliveryStepMs: 2, ...options });
  return messaging;
}

async function call(
  simulator: MessagingSimulator,
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
) {
  const headers: Record<string, string> = { ...extraHeaders };
  if (simulator.token !== undefined) headers.authorization = `Bearer ${simulator.token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${simulator.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : undefined) as Record<string, unknown>,
    headers: response.headers,
  };
}

let keyCount = 0;
async function send(
  simulator: MessagingSimulator,
  body: Record<string, unknown>,
  key = `key-${++keyCount}`,
) {
  return call(simulator, "POST", "/v1/messages", body, { "idempotency-key": key });
}

function approval(simulator: MessagingSimulator, extra: Record<string, unknown> = {}) {
  return {
    subscription_link_id: simulator.approverLinkId,
    kind: "interaction",
    text: "Delete 4 callbacks on hooks.old-warehouse.example?",
    options: [
      { id: "approve", label: "Approve" },
      { id: "deny", label: "Deny" },
    ],
    metadata: { fingerprint: "sha256:abc", tool: "delete_callbacks" },
    ...extra,
  };
}

async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function interactionOf(simulator: MessagingSimulator, id: unknown) {
  return (await call(simulator, "GET", `/v1/interactions/${String(id)}`)).body;
}

describe("messaging simulator: service basics", () => {
  it("requires the bearer token unless turned off", async () => {
    const simulator = await start();
    const response = await fetch(`${simulator.url}/v1/capabilities`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "unauthorized",
    );
    const open = await startMessagingSimulator({ token: false });
    try {
      expect(open.token).toBeUndefined();
      expect((await fetch(`${open.url}/v1/capabilities`)).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it("reports the configured capabilities", async () => {
    const simulator = await start();
    expect((await call(simulator, "GET", "/v1/capabilities")).body).toEqual({
      features: ["notifications", "interactions", "options", "free_text"],
    });
    const limited = await startMessagingSimulator({ features: ["notifications"] });
    try {
      expect((await call(limited, "GET", "/v1/capabilities")).body).toEqual({
        features: ["notifications"],
      });
      const refused = await send(limited, approval(limited));
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body)).toContain("interactions");
    } finally {
      await limited.close();
    }
  });

  it("creates pending links that the subscriber activates by accepting on their page", async () => {
    const simulator = await start();
    const created = await call(simulator, "POST", "/v1/subscription-links", { label: "finance" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: "pending", label: "finance" });
    const id = String(created.body.subscription_link_id);
    const refused = await send(simulator, {
      subscription_link_id: id,
      kind: "notification",
      text: "hi",
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain("pending");
    const opened = await fetch(String(created.body.url));
    expect(opened.status).toBe(200);
    const consent = await opened.text();
    expect(consent).toContain(">Accept</button>");
    // Opening the page is not consent: pressing Accept is.
    expect((await call(simulator, "GET", `/v1/subscription-links/${id}`)).body).toMatchObject({
      state: "pending",
    });
    const token = /name="token" value="([^"]+)"/.exec(consent)![1]!;
    const accepted = await fetch(String(created.body.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: simulator.url },
      body: new URLSearchParams({ token, consent: "accept" }),
      redirect: "manual",
    });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toBe(`/subscribe/${id}`);
    expect((await call(simulator, "GET", `/v1/subscription-links/${id}`)).body).toMatchObject({
      state: "active",
    });
    expect(await (await fetch(String(created.body.url))).text()).toContain(`/inbox/${id}`);
    expect(
      (await send(simulator, { subscription_link_id: id, kind: "notification", text: "hi" }))
        .status,
    ).toBe(202);
  });

  it("refuses messages to revoked, expired or unknown links", async () => {
    const simulator = await start();
    simulator.revokeLink(simulator.approverLinkId);
    const revoked = await send(simulator, approval(simulator));
    expect(revoked.status).toBe(422);
    expect(JSON.stringify(revoked.body)).toContain("revoked");
    simulator.expireLink(simulator.approverLinkId);
    expect((await send(simulator, approval(simulator))).status).toBe(422);
    simulator.activateLink(simulator.approverLinkId);
    expect((await send(simulator, approval(simulator))).status).toBe(202);
    const unknown = await send(simulator, approval(simulator, { subscription_link_id: "missing" }));
    expect(unknown.status).toBe(404);
  });

  it("validates the message body", async () => {
    const simulator = await start();
    const base = { subscription_link_id: simulator.approverLinkId, text: "hi" };
    expect((await send(simulator, { ...base, kind: "letter" })).status).toBe(400);
    expect(
      (await send(simulator, { ...base, kind: "notification", options: [{ id: "a", label: "A" }] }))
        .status,
    ).toBe(400);
    const duplicate = await send(
      simulator,
      approval(simulator, {
        options: [
          { id: "a", label: "A" },
          { id: "a", label: "B" },
        ],
      }),
    );
    expect(duplicate.status).toBe(400);
    expect(JSON.stringify(duplicate.body)).toContain("used twice");
    expect(simulator.messages()).toEqual([]);
  });
});

describe("messaging simulator: idempotency", () => {
  it("requires an Idempotency-Key header", async () => {
    const simulator = await start();
    const response = await call(simulator, "POST", "/v1/messages", approval(simulator));
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain("Idempotency-Key header is required");
  });

  it("answers a repeated key with the first answer and sends only once", async () => {
    const simulator = await start({ answer: "never" });
    const first = await send(simulator, approval(simulator), "same-key");
    const second = await send(simulator, approval(simulator), "same-key");
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(simulator.messages()).toHaveLength(1);
    expect(simulator.interactions()).toHaveLength(1);
    const different = await send(simulator, approval(simulator, { text: "other" }), "same-key");
    expect(different.status).toBe(422);
  });
});

describe("messaging simulator: delivery and answers", () => {
  it("delivers a notification over time", async () => {
    const simulator = await start();
    const sent = await send(simulator, {
      subscription_link_id: simulator.approverLinkId,
      kind: "notification",
      text: "Done.",
    });
    expect(sent.body).toEqual({ message_id: expect.any(String), state: "accepted" });
    const status = await pollUntil(
      async () =>
        (await call(simulator, "GET", `/v1/messages/${String(sent.body.message_id)}`)).body,
      (body) => body.state === "delivered",
    );
    expect(status.state).toBe("delivered");
    expect(status.interaction_id).toBeUndefined();
  });

  it("approves in approve mode after the answer delay", async () => {
    const simulator = await start({ answer: "approve" });
    const sent = await send(simulator, approval(simulator));
    expect(sent.body).toMatchObject({ state: "accepted", interaction_id: expect.any(String) });
    expect((await interactionOf(simulator, sent.body.interaction_id)).state).toBe("pending");
    const answered = await pollUntil(
      () => interactionOf(simulator, sent.body.interaction_id),
      (body) => body.state !== "pending",
    );
    expect(answered).toMatchObject({
      state: "answered",
      message_id: sent.body.message_id,
      answer: { option_id: "approve", answered_at: expect.any(String) },
    });
  });

  it("denies in deny mode (the default, as on the command line) and never answers in never mode", async () => {
    const simulator = await start();
    const denied = await send(simulator, approval(simulator));
    const answer = await pollUntil(
      () => interactionOf(simulator, denied.body.interaction_id),
      (body) => body.state !== "pending",
    );
    expect(answer).toMatchObject({ state: "answered", answer: { option_id: "deny" } });

    simulator.setAnswer("never");
    const ignored = await send(simulator, approval(simulator));
    await pollUntil(
      async () =>
        (await call(simulator, "GET", `/v1/messages/${String(ignored.body.message_id)}`)).body,
      (body) => body.state === "delivered",
    );
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect((await interactionOf(simulator, ignored.body.interaction_id)).state).toBe("pending");
  });

  it("asks an answer function with the text, options and metadata; undefined leaves it pending", async () => {
    const seen: unknown[] = [];
    const simulator = await start({
      answer: async (question) => {
        seen.push(question);
        return question.metadata.tool === "delete_callbacks"
          ? { option_id: "deny", text: "not today" }
          : undefined;
      },
    });
    const asked = await send(simulator, approval(simulator));
    const answered = await pollUntil(
      () => interactionOf(simulator, asked.body.interaction_id),
      (body) => body.state !== "pending",
    );
    expect(answered.answer).toMatchObject({ option_id: "deny", text: "not today" });
    expect(seen[0]).toMatchObject({
      interaction_id: asked.body.interaction_id,
      text: expect.stringContaining("Delete 4 callbacks"),
      options: [
        { id: "approve", label: "Approve" },
        { id: "deny", label: "Deny" },
      ],
      metadata: { fingerprint: "sha256:abc" },
    });

    const other = await send(simulator, approval(simulator, { metadata: { tool: "other" } }));
    await pollUntil(
      async () => seen.length,
      (count) => count === 2,
    );
    expect((await interactionOf(simulator, other.body.interaction_id)).state).toBe("pending");
  });

  it("keeps an interaction pending and records the error when the answer function throws", async () => {
    const simulator = await start({
      answer: () => {
        throw new Error("answerer broke");
      },
    });
    const asked = await send(simulator, approval(simulator));
    await pollUntil(
      async () => simulator.answerErrors().length,
      (count) => count > 0,
    );
    expect(simulator.answerErrors()[0]?.message).toBe("answerer broke");
    expect((await interactionOf(simulator, asked.body.interaction_id)).state).toBe("pending");
  });

  it("lets tests answer and expire interactions directly", async () => {
    const simulator = await start({ answer: "never" });
    const first = await send(simulator, approval(simulator));
    simulator.answerInteraction(String(first.body.interaction_id), "approve", "ok");
    expect(await interactionOf(simulator, first.body.interaction_id)).toMatchObject({
      state: "answered",
      answer: { option_id: "approve", text: "ok" },
    });
    expect(() => simulator.answerInteraction(String(first.body.interaction_id), "deny")).toThrow(
      /not pending/,
    );
    const second = await send(simulator, approval(simulator));
    simulator.expireInteraction(String(second.body.interaction_id));
    expect((await interactionOf(simulator, second.body.interaction_id)).state).toBe("expired");
  });

  it("cancels a message and its pending interaction", async () => {
    const simulator = await start({ answer: "never" });
    const sent = await send(simulator, approval(simulator));
    const canceled = await call(
      simulator,
      "POST",
      `/v1/messages/${String(sent.body.message_id)}/cancel`,
    );
    expect(canceled.body).toEqual({ message_id: sent.body.message_id, state: "canceled" });
    expect((await interactionOf(simulator, sent.body.interaction_id)).state).toBe("canceled");
    expect((await call(simulator, "POST", "/v1/messages/unknown/cancel")).status).toBe(404);
  });

  it("does not cancel an interaction that was already answered", async () => {
    const simulator = await start({ answer: "never" });
    const sent = await send(simulator, approval(simulator));
    await pollUntil(
      async () =>
        (await call(simulator, "GET", `/v1/messages/${String(sent.body.message_id)}`)).body,
      (body) => body.state === "delivered",
    );
    simulator.answerInteraction(String(sent.body.interaction_id), "approve");
    const canceled = await call(
      simulator,
      "POST",
      `/v1/messages/${String(sent.body.message_id)}/cancel`,
    );
    expect(canceled.body.state).toBe("delivered");
    expect((await interactionOf(simulator, sent.body.interaction_id)).state).toBe("answered");
  });

  it("injects delivery failures: the message fails with an error and its interaction fails", async () => {
    const simulator = await start({ answer: "never" });
    const sent = await send(simulator, approval(simulator));
    simulator.failDelivery(String(sent.body.message_id), "phone unreachable");
    const status = (await call(simulator, "GET", `/v1/messages/${String(sent.body.message_id)}`))
      .body;
    expect(status).toMatchObject({
      state: "failed",
      error: { code: "delivery_failed", message: "phone unreachable" },
    });
    expect((await interactionOf(simulator, sent.body.interaction_id)).state).toBe("failed");

    simulator.setAnswer("approve");
    simulator.failNextDelivery();
    const next = await send(simulator, approval(simulator));
    const failed = await pollUntil(
      async () =>
        (await call(simulator, "GET", `/v1/messages/${String(next.body.message_id)}`)).body,
      (body) => body.state !== "accepted",
    );
    expect(failed.state).toBe("failed");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await interactionOf(simulator, next.body.interaction_id)).state).toBe("failed");
  });

  it("expires an interaction after expires_in_s", async () => {
    const simulator = await start({ answer: "never" });
    const sent = await send(simulator, approval(simulator, { expires_in_s: 1 }));
    expect((await interactionOf(simulator, sent.body.interaction_id)).expires_at).toEqual(
      expect.any(String),
    );
    const expired = await pollUntil(
      () => interactionOf(simulator, sent.body.interaction_id),
      (body) => body.state !== "pending",
    );
    expect(expired.state).toBe("expired");
  });

  it("fails HTTP requests on demand and logs them without credentials", async () => {
    const simulator = await start();
    simulator.failNext({ method: "POST", path: "/v1/messages", status: 503 });
    const sent = await send(simulator, approval(simulator), "retry-key");
    expect(sent.status).toBe(503);
    expect(simulator.messages()).toHaveLength(0);
    expect((await send(simulator, approval(simulator), "retry-key")).status).toBe(202);
    const logged = simulator.requests.filter((request) => request.path === "/v1/messages");
    expect(logged.map((request) => request.status)).toEqual([503, 202]);
    expect(logged[0]?.headers["idempotency-key"]).toBe("retry-key");
    expect(JSON.stringify(simulator.requests)).not.toContain(String(simulator.token));
  });
});
