import nock from "nock";
import { MessagingApprover } from "../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";

/** Order service and messaging service, both reached over https through nock. */
export const ordersOrigin = "https://orders.test.example";
export const ordersPrefix = "/acme/api/v1";
export const messagingOrigin = "https://messaging.test.example";
export const orderToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJlLWFjbWU";
export const linkId = "sl_approver";
export const messageId = "m_1";
export const interactionId = "i_1";

/** Callbacks the order service lists; two point at the retired host. */
export const callbacks = [
  {
    id: "0b1d8f3e-3c4a-4f57-9a31-6d1f2b7c9e01",
    url: "https://hooks.acme-shop.example/webhooks/orders",
    message_type: "orderEvent",
    api_version: "1.0",
    token: "enc_v1.keep-this-secret-1",
  },
  {
    id: "1c2e9a4f-4d5b-4a68-8b42-7e2a3c8d0f12",
    url: "https://hooks.old-warehouse.example/acme/orders",
    message_type: "orderEvent",
    api_version: "0.9",
  },
  {
    id: "2d3fab50-5e6c-4b79-9c53-8f3b4d9e1a23",
    url: "https://hooks.old-warehouse.example/acme/asn",
    message_type: "inboundShipmentEvent",
    api_version: "0.9",
    token: "enc_v1.keep-this-secret-2",
  },
];

/** The ids of the callbacks on the retired host. */
export const retiredIds = [callbacks[1]?.id as string, callbacks[2]?.id as string];

/** Order client against nock, without retries so every reply is used once. */
export function makeOrderClient(): OrderClient {
  return new OrderClient({
    baseUrl: `${ordersOrigin}${ordersPrefix}/`,
    token: orderToken,
    maxRetries: 0,
  });
}

/** A real approver over a real messaging client, polling fast. */
export function makeApprover(options: { timeoutMs?: number } = {}): MessagingApprover {
  return new MessagingApprover({
    client: new MessagingClient({
      baseUrl: messagingOrigin,
      token: "messaging-token-5678",
      maxRetries: 0,
    }),
    subscriptionLinkId: linkId,
    timeoutMs: options.timeoutMs ?? 2_000,
    pollIntervalMs: 5,
  });
}

/** `GET /callbacks?message_type=all`, answered `times` times. */
export function nockListCallbacks(times = 1): nock.Scope {
  return nock(ordersOrigin)
    .get(`${ordersPrefix}/callbacks`)
    .query({ message_type: "all" })
    .times(times)
    .reply(200, callbacks);
}

/** `DELETE /callbacks`, recording each body; answers success for every id. */
export function nockDeleteCallbacks(bodies: unknown[]): nock.Scope {
  return nock(ordersOrigin)
    .delete(`${ordersPrefix}/callbacks`, (body) => {
      bodies.push(body);
      return true;
    })
    .reply(200, (_uri, body) => ({
      deleted: (body as string[]).map((id) => ({ id, status: "success" })),
    }));
}

/** Capabilities and link state the readiness check reads. */
export function nockReadiness(
  link: { state: string } = { state: "active" },
  features: string[] = ["notifications", "interactions", "options"],
): nock.Scope {
  return nock(messagingOrigin)
    .get("/v1/capabilities")
    .reply(200, { features })
    .get(`/v1/subscription-links/${linkId}`)
    .reply(200, { subscription_link_id: linkId, url: "https://consent.example/x", ...link });
}

/** `POST /v1/messages`, recording the question sent. */
export function nockSendQuestion(sent: Array<Record<string, unknown>>): nock.Scope {
  return nock(messagingOrigin)
    .post("/v1/messages", (body) => {
      sent.push(body as Record<string, unknown>);
      return true;
    })
    .reply(200, { message_id: messageId, interaction_id: interactionId, state: "accepted" });
}

/** An interaction as the service answers it, carrying `fingerprint` in its metadata when given. */
export function interaction(
  state: string,
  extra: { optionId?: string; fingerprint?: string | undefined } = {},
): Record<string, unknown> {
  return {
    interaction_id: interactionId,
    message_id: messageId,
    state,
    ...(extra.optionId !== undefined
      ? { answer: { option_id: extra.optionId, answered_at: "2025-06-01T10:00:00Z" } }
      : {}),
    ...(extra.fingerprint !== undefined ? { metadata: { fingerprint: extra.fingerprint } } : {}),
  };
}

/** The fingerprint the approver put in the question's metadata. */
export function sentFingerprint(sent: ReadonlyArray<Record<string, unknown>>): string | undefined {
  const metadata = sent[0]?.metadata as { fingerprint?: string } | undefined;
  return metadata?.fingerprint;
}
