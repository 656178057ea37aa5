import { Writable } from "node:stream";
import nock from "nock";
import { pino } from "pino";
import type { ApprovalAction, ApprovalContext } from "../../../src/agent/approver.js";
import { MessagingApprover } from "../../../src/approvers/messaging/messaging-approver.js";
import type { MessagingApproverOptions } from "../../../src/approvers/messaging/messaging-approver-options.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { actionFingerprint } from "../../../src/internal/canonical-json.js";
import { silentLogger } from "../../../src/internal/logger.js";

export const base = "https://messaging.test.example";
export const linkId = "sl_1";
export const messageId = "m_1";
export const interactionId = "i_1";
export const interactionPath = `/v1/interactions/${interactionId}`;
export const messagePath = `/v1/messages/${messageId}`;
export const cancelPath = `/v1/messages/${messageId}/cancel`;
/** A value that must never leave the process. */
export const secretPhrase = "hunter2-correct-horse-battery";

/** A real client against the nock routes; no retries so each reply is used once. */
export function makeClient(): MessagingClient {
  return new MessagingClient({ baseUrl: base, token: "messaging-token-5678", maxRetries: 0 });
}

/** An approver with small timeouts, over a real `MessagingClient`. */
export function makeApprover(options: Partial<MessagingApproverOptions> = {}): MessagingApprover {
  return new MessagingApprover({
    client: makeClient(),
    subscriptionLinkId: linkId,
    timeoutMs: 2_000,
    pollIntervalMs: 5,
    ...options,
  });
}

/** The action of deleting two callbacks, with a secret among its arguments. */
export function deleteCallbacksAction(
  args: Record<string, unknown> = {
    callback_ids: ["7d3f0c9e-1111-4a5b-9c8d-000000000001", "7d3f0c9e-2222-4a5b-9c8d-000000000002"],
    secret_phrase: secretPhrase,
  },
): ApprovalAction {
  return {
    approvalId: "run.approval-of-delete-callbacks",
    toolName: "delete_callbacks",
    toolCallId: "call_1",
    arguments: args,
    fingerprint: actionFingerprint("delete_callbacks", args),
    description: {
      summary: "Delete 2 callbacks from the production account.",
      details: [
        "https://hooks.example.com/orders (order_shipped)",
        "https://hooks.example.com/cancellations (order_cancelled)",
      ],
      irreversible: true,
    },
  };
}

/** A context with a live signal and a silent logger unless given. */
export function makeContext(overrides: Partial<ApprovalContext> = {}): ApprovalContext {
  return { signal: new AbortController().signal, logger: silentLogger(), ...overrides };
}

/** A pino logger whose lines are collected as parsed JSON. */
export function captureLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: pino({ level: "debug" }, stream), lines };
}

/** Readiness routes answering: link active, interactions supported. */
export function nockReady(
  link: Record<string, unknown> = { state: "active" },
  features: string[] = ["notifications", "interactions", "options", "free_text"],
): nock.Scope {
  return nock(base)
    .get("/v1/capabilities")
    .reply(200, { features })
    .get(`/v1/subscription-links/${linkId}`)
    .reply(200, { subscription_link_id: linkId, url: "https://consent.example/abc", ...link });
}

/** `POST /v1/messages`, recording the bodies sent. */
export function nockSend(
  sent: Record<string, unknown>[] = [],
  interaction_id = interactionId,
): nock.Scope {
  return nock(base)
    .post("/v1/messages", (body) => {
      sent.push(body as Record<string, unknown>);
      return true;
    })
    .reply(200, { message_id: messageId, interaction_id, state: "accepted" });
}

/** An interaction answer as the service sends it. */
export function interaction(
  state: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { interaction_id: interactionId, message_id: messageId, state, ...extra };
}

/** An `answered` interaction choosing `optionId`, carrying `fingerprint` in its metadata when given. */
export function answered(
  optionId: string | undefined,
  options: { text?: string; fingerprint?: string } = {},
): Record<string, unknown> {
  return interaction("answered", {
    answer: {
      ...(optionId !== undefined ? { option_id: optionId } : {}),
      ...(options.text !== undefined ? { text: options.text } : {}),
      answered_at: "2025-05-01T10:00:00Z",
    },
    ...(options.fingerprint !== undefined
      ? { metadata: { fingerprint: options.fingerprint } }
      : {}),
  });
}
