import { randomBytes } from "node:crypto";
import { readBearerToken } from "../http/bearer-token.js";
import type { FaultRule } from "../http/fault-injector.js";
import type { RecordedRequest } from "../http/request-log.js";
import { SeededRandom, uuidSource } from "../http/seeded-random.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { startSimulatorServer } from "../http/simulator-server.js";
import { toRfc3339 } from "../http/timestamps.js";
import { type AnswerMode, answerFunctionFor } from "./answer-mode.js";
import { approvalPageRoutes } from "./approval-page-routes.js";
import { createSeededMessagingState, type SeededLinkIds } from "./create-seeded-messaging-state.js";
import { linkRoutes } from "./link-routes.js";
import { MessageLifecycle } from "./message-lifecycle.js";
import { messageRoutes } from "./message-routes.js";
import type { MessagingService } from "./messaging-service.js";
import type {
  InteractionRecord,
  MessageRecord,
  MessagingState,
  SubscriptionLink,
} from "./messaging-state.js";

/** Features the simulator reports by default. */
export const defaultMessagingFeatures = ["notifications", "interactions", "options", "free_text"];

/** Options of {@link startMessagingSimulator}. */
export interface MessagingSimulatorOptions {
  /** Port on 127.0.0.1. @default 0 (a free port) */
  port?: number;
  /** Bearer token required on /v1 routes; `false` turns authentication off. @default a random `msg_...` token */
  token?: string | false;
  /** Features of `GET /v1/capabilities`; also enforced on `POST /v1/messages`. @default notifications, interactions, options, free_text */
  features?: readonly string[];
  /**
   * How the simulated person answers interactions. Refuses by default, as
   * the command line does without a terminal: approving is asked for.
   * @default "deny"
   */
  answer?: AnswerMode;
  /** Delay between delivery of an interaction and the automatic answer. @default 50 */
  answerDelayMs?: number;
  /** Delay of each delivery step, accepted -> sent -> delivered. @default 10 */
  deliveryStepMs?: number;
  /**
   * Seed of the ids of links, messages and interactions; equal seeds give
   * equal ids. Without it every start hands out fresh, unguessable ids (the
   * inbox page's address among them).
   */
  seed?: number;
  /** Clock for timestamps. @default () => new Date() */
  now?: () => Date;
}

/** A running messaging-delivery simulator (docs/contract.md §4). */
export interface MessagingSimulator {
  /** Base URL, `http://127.0.0.1:PORT` (routes are under `/v1`). */
  url: string;
  host: string;
  port: number;
  /** The bearer token required, or undefined when authentication is off. */
  token: string | undefined;
  /** Id of the seeded active subscription link of the approver. */
  approverLinkId: string;
  /**
   * The approver's inbox page, `http://127.0.0.1:PORT/inbox/{approverLinkId}`:
   * a person answers the link's interactions there in a browser.
   */
  inboxUrl: string;
  /** The inbox page of any subscription link. */
  inboxUrlOf(linkId: string): string;
  /** Every request received (live array); headers exclude `authorization`. */
  readonly requests: RecordedRequest[];
  /** The next matching request(s) get this answer instead. */
  failNext(rule: FaultRule): void;
  clearRequests(): void;
  /** The live state; tests may change it directly. Replaced by {@link reset}. */
  readonly state: MessagingState;
  links(): SubscriptionLink[];
  messages(): MessageRecord[];
  interactions(): InteractionRecord[];
  message(messageId: string): MessageRecord | undefined;
  interaction(interactionId: string): InteractionRecord | undefined;
  /** Activates a pending link, as the subscriber opening it would. */
  activateLink(linkId: string): void;
  expireLink(linkId: string): void;
  revokeLink(linkId: string): void;
  /** Answers a pending interaction now; throws when it is not pending. */
  answerInteraction(interactionId: string, optionId: string, text?: string): void;
  /** Expires a pending interaction now (and its message when not yet delivered). */
  expireInteraction(interactionId: string): void;
  /** Makes delivery of a message fail now; its pending interaction fails too. */
  failDelivery(messageId: string, errorMessage?: string): void;
  /** Makes delivery of the next accepted message fail. */
  failNextDelivery(errorMessage?: string): void;
  /** Changes how later interactions are answered. */
  setAnswer(mode: AnswerMode): void;
  /** Errors thrown by an answer function (those interactions stayed pending). */
  answerErrors(): Error[];
  /**
   * Restores the seeded data (the same links; message and interaction ids
   * start again from the seed when one was given), empties the request log
   * and drops planned failures.
   */
  reset(): void;
  close(): Promise<void>;
}

const defaultFailure = "The messaging platform could not deliver the message (simulated failure).";

/**
 * Starts an in-memory messaging-delivery service on 127.0.0.1 speaking
 * docs/contract.md §4. Messages move accepted -> sent -> delivered over a few
 * milliseconds; interactions are answered by `answer` after `answerDelayMs`.
 *
 * @example
 * const messaging = await startMessagingSimulator({ answer: "deny" });
 * // send an interaction to messaging.approverLinkId, then poll GET /v1/interactions/{id}
 * await messaging.close();
 */
export async function startMessagingSimulator(
  options: MessagingSimulatorOptions = {},
): Promise<MessagingSimulator> {
  const token =
    options.token === false
      ? undefined
      : (options.token ?? `msg_${randomBytes(18).toString("base64url")}`);
  const seed = options.seed;
  const newIdSource = () => uuidSource(seed === undefined ? undefined : new SeededRandom(seed));
  const now = options.now ?? (() => new Date());
  let answer = answerFunctionFor(options.answer ?? "deny");
  const service: MessagingService = {
    state: { links: [], messages: [], interactions: [], idempotency: new Map() },
    newId: newIdSource(),
    features: [...(options.features ?? defaultMessagingFeatures)],
    origin: "",
    formToken: randomBytes(18).toString("base64url"),
    now,
    lifecycle: new MessageLifecycle({
      deliveryStepMs: nonNegative(options.deliveryStepMs, 10, "deliveryStepMs"),
      answerDelayMs: nonNegative(options.answerDelayMs, 50, "answerDelayMs"),
      answer: () => answer,
      now,
      state: () => service.state,
    }),
  };

  const server = await startSimulatorServer({
    ...(options.port === undefined ? {} : { port: options.port }),
    basePath: "",
    errorFormat: "json",
    routes: [...messageRoutes(service), ...linkRoutes(service), ...approvalPageRoutes(service)],
    authenticate: ({ headers }) => {
      if (token === undefined) return undefined;
      const presented = readBearerToken(headers);
      if (presented === token) return undefined;
      return new SimulatorHttpError(
        401,
        "unauthorized",
        presented === undefined
          ? "Missing bearer token: send Authorization: Bearer <token>."
          : "Invalid bearer token.",
        { "www-authenticate": 'Bearer realm="messaging"' },
      );
    },
  });
  service.origin = server.origin;
  let linkIds: SeededLinkIds | undefined;
  const seedState = () => {
    service.newId = newIdSource();
    const fresh: SeededLinkIds = [service.newId(), service.newId(), service.newId()];
    // The links stay those of this start, so its inbox address holds across resets.
    linkIds ??= fresh;
    service.state = createSeededMessagingState(linkIds, server.origin);
  };
  seedState();
  const approverLinkId = service.state.links[0]?.subscription_link_id ?? "";

  const inboxUrlOf = (linkId: string) => `${server.origin}/inbox/${encodeURIComponent(linkId)}`;
  const link = (linkId: string): SubscriptionLink => {
    const found = service.state.links.find(
      (candidate) => candidate.subscription_link_id === linkId,
    );
    if (!found) throw new Error(`No subscription link ${linkId} in the messaging simulator`);
    return found;
  };
  const message = (messageId: string): MessageRecord => {
    const found = service.state.messages.find((candidate) => candidate.message_id === messageId);
    if (!found) throw new Error(`No message ${messageId} in the messaging simulator`);
    return found;
  };
  const interaction = (interactionId: string): InteractionRecord => {
    const found = service.state.interactions.find(
      (candidate) => candidate.interaction_id === interactionId,
    );
    if (!found) throw new Error(`No interaction ${interactionId} in the messaging simulator`);
    return found;
  };

  return {
    url: server.origin,
    host: server.host,
    port: server.port,
    token,
    approverLinkId,
    inboxUrl: inboxUrlOf(approverLinkId),
    inboxUrlOf,
    requests: server.requests,
    failNext: server.failNext,
    clearRequests: server.clearRequests,
    get state() {
      return service.state;
    },
    links: () => structuredClone(service.state.links),
    messages: () => structuredClone(service.state.messages),
    interactions: () => structuredClone(service.state.interactions),
    message: (messageId) => {
      const found = service.state.messages.find((candidate) => candidate.message_id === messageId);
      return found ? structuredClone(found) : undefined;
    },
    interaction: (interactionId) => {
      const found = service.state.interactions.find(
        (candidate) => candidate.interaction_id === interactionId,
      );
      return found ? structuredClone(found) : undefined;
    },
    activateLink: (linkId) => {
      const found = link(linkId);
      found.state = "active";
      found.activated_at ??= toRfc3339(now());
    },
    expireLink: (linkId) => {
      link(linkId).state = "expired";
    },
    revokeLink: (linkId) => {
      link(linkId).state = "revoked";
    },
    answerInteraction: (interactionId, optionId, text) => {
      const found = interaction(interactionId);
      if (!service.lifecycle.answer(found, optionId, text)) {
        throw new Error(
          `Interaction ${interactionId} is ${found.state}, not pending; it cannot be answered`,
        );
      }
    },
    expireInteraction: (interactionId) => {
      const found = interaction(interactionId);
      if (found.state !== "pending") {
        throw new Error(
          `Interaction ${interactionId} is ${found.state}, not pending; it cannot expire`,
        );
      }
      service.lifecycle.expire(message(found.message_id));
    },
    failDelivery: (messageId, errorMessage = defaultFailure) => {
      service.lifecycle.failDelivery(message(messageId), errorMessage);
    },
    failNextDelivery: (errorMessage = defaultFailure) => {
      service.lifecycle.failNextDelivery(errorMessage);
    },
    setAnswer: (mode) => {
      answer = answerFunctionFor(mode);
    },
    answerErrors: () => [...service.lifecycle.answerErrors],
    reset: () => {
      seedState();
      server.clearRequests();
      server.clearFaults();
    },
    close: async () => {
      service.lifecycle.close();
      await server.close();
    },
  };
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a number of 0 or more, got ${String(value)}`);
  }
  return value;
}
