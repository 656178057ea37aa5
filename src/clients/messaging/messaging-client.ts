import { randomUUID } from "node:crypto";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { HttpClient } from "../../internal/http/http-client.js";
import {
  pickTransportOptions,
  type TransportOptions,
} from "../../internal/http/transport-options.js";
import { componentLogger, type Logger } from "../../internal/logger.js";
import { attachSecrets, SecretRegistry, secretsOf } from "../../internal/redact.js";
import type { RequestOptions } from "../request-options.js";
import { fillRoutePath } from "../route-table.js";
import {
  buildSendMessageBody,
  buildSubscriptionLinkBody,
  type CreateSubscriptionLinkInput,
  checkRequestOptions,
  type SendMessageInput,
  type SendMessageOptions,
} from "./messaging-requests.js";
import {
  type MessagingRouteName,
  type MessagingRouteOverrides,
  type MessagingRoutes,
  resolveMessagingRoutes,
} from "./messaging-routes.js";
import {
  type AcceptedMessage,
  type Interaction,
  type Message,
  type MessageCancellation,
  type MessagingCapabilities,
  type SubscriptionLink,
  terminalInteractionStates,
  terminalSubscriptionLinkStates,
} from "./messaging-types.js";
import {
  type AnswerSource,
  parseAcceptedMessage,
  parseCapabilities,
  parseInteraction,
  parseMessage,
  parseMessageCancellation,
  parseSubscriptionLink,
} from "./parse-messaging-answers.js";
import { pollUntil } from "./poll-until.js";
import {
  type InteractionOutcome,
  resolvePollSchedule,
  type SubscriptionLinkOutcome,
  type WaitOptions,
} from "./wait-options.js";

/** Options of `MessagingClient`: the service, its token, and the shared transport options. */
export interface MessagingClientOptions extends TransportOptions {
  /** The service address without the `/v1` prefix, e.g. `https://messaging.example.com`. */
  baseUrl: string;
  /** Bearer token, when the service requires one; never logged. */
  token?: string | undefined;
  /** Receives debug and warning lines under `component: "messaging-client"`. */
  logger?: Logger | undefined;
  /** Retries after the first attempt (reads, 408/429, and `sendMessage` thanks to its idempotency key). @default 2 */
  maxRetries?: number | undefined;
  /** Overrides for the route table, merged over `messagingRoutes`. */
  routes?: MessagingRouteOverrides | undefined;
}

/**
 * Client of the messaging-delivery service (docs/contract.md §4): consent links,
 * durable notifications and interactions, and the human's answer.
 *
 * @example
 * const messaging = new MessagingClient({ baseUrl: "https://messaging.example.com", token });
 * const sent = await messaging.sendMessage({
 *   subscriptionLinkId: "sl_1",
 *   kind: "interaction",
 *   text: "Cancel order 1042?",
 *   options: [{ id: "approve", label: "Approve" }, { id: "deny", label: "Deny" }],
 * });
 * const outcome = await messaging.waitForInteraction(sent.interactionId!, { timeoutMs: 600_000 });
 * if (outcome.status === "answered" && outcome.interaction.answer?.optionId === "approve") { ... }
 */
export class MessagingClient {
  /** The base address requests go to. */
  readonly baseUrl: string;
  /** The route table in use (defaults merged with the `routes` option). */
  readonly routes: Readonly<MessagingRoutes>;
  readonly #http: HttpClient;
  readonly #logger: Logger;

  constructor(options: MessagingClientOptions) {
    if (typeof options !== "object" || options === null) {
      throw new ConfigurationError("MessagingClient needs options such as { baseUrl, token }");
    }
    const { token } = options;
    if (token !== undefined && (typeof token !== "string" || !/^[\x21-\x7e]+$/.test(token))) {
      throw new ConfigurationError(
        "token must be a non-empty string of visible characters without spaces or line breaks (omit it when the service needs none)",
      );
    }
    this.routes = Object.freeze(resolveMessagingRoutes(options.routes));
    this.#logger = componentLogger(
      options.logger,
      "messaging-client",
      attachSecrets(this, new SecretRegistry().add(token)),
    );
    this.#http = new HttpClient({
      secrets: secretsOf(this),
      baseUrl: options.baseUrl,
      token,
      ...pickTransportOptions(options),
      logger: this.#logger,
    });
    this.baseUrl = this.#http.baseUrl.href;
  }

  /** `GET /v1/capabilities`: the features the provider supports now. */
  async getCapabilities(options?: RequestOptions): Promise<MessagingCapabilities> {
    const { body, source } = await this.#call("getCapabilities", {}, undefined, options);
    return parseCapabilities(body, source);
  }

  /**
   * `POST /v1/subscription-links`: a one-time consent link (state `pending`)
   * to hand to the subscriber. Not retried after a 5xx, which could create two links.
   */
  async createSubscriptionLink(
    input?: CreateSubscriptionLinkInput,
    options?: RequestOptions,
  ): Promise<SubscriptionLink> {
    const requestBody = buildSubscriptionLinkBody(input);
    const { body, source } = await this.#call("createSubscriptionLink", {}, requestBody, options);
    return parseSubscriptionLink(body, source, undefined, "pending");
  }

  /** `GET /v1/subscription-links/{id}`: the link's activation state. */
  async getSubscriptionLink(
    subscriptionLinkId: string,
    options?: RequestOptions,
  ): Promise<SubscriptionLink> {
    const { body, source } = await this.#call(
      "getSubscriptionLink",
      { subscription_link_id: subscriptionLinkId },
      undefined,
      options,
    );
    return parseSubscriptionLink(body, source, subscriptionLinkId);
  }

  /**
   * `POST /v1/messages`: hands a notification or an interaction over for
   * durable delivery. Every call sends one `Idempotency-Key` (fresh, or
   * `options.idempotencyKey`) on all its attempts, so retries after a 5xx or
   * a dropped connection never deliver twice. The key is returned.
   */
  async sendMessage(
    input: SendMessageInput,
    options?: SendMessageOptions,
  ): Promise<AcceptedMessage> {
    const requestBody = buildSendMessageBody(input);
    const idempotencyKey = options?.idempotencyKey ?? randomUUID();
    const { body, source } = await this.#call("sendMessage", {}, requestBody, options, {
      idempotencyKey,
    });
    return parseAcceptedMessage(body, source, idempotencyKey);
  }

  /** `GET /v1/messages/{id}`: delivery progress. */
  async getMessage(messageId: string, options?: RequestOptions): Promise<Message> {
    const { body, source } = await this.#call(
      "getMessage",
      { message_id: messageId },
      undefined,
      options,
    );
    return parseMessage(body, source, messageId);
  }

  /**
   * `POST /v1/messages/{id}/cancel`: asks the service to stop delivery (and
   * end the interaction). Cancelling twice changes nothing, so it is retried
   * like a read.
   */
  async cancelMessage(messageId: string, options?: RequestOptions): Promise<MessageCancellation> {
    const { body, source } = await this.#call(
      "cancelMessage",
      { message_id: messageId },
      undefined,
      options,
      { idempotent: true },
    );
    return parseMessageCancellation(body, source, messageId);
  }

  /** `GET /v1/interactions/{id}`: the answer, or how the interaction ended. */
  async getInteraction(interactionId: string, options?: RequestOptions): Promise<Interaction> {
    const { body, source } = await this.#call(
      "getInteraction",
      { interaction_id: interactionId },
      undefined,
      options,
    );
    return parseInteraction(body, source, interactionId);
  }

  /**
   * Polls an interaction until it is answered, expired, canceled or failed,
   * or `timeoutMs` runs out, and says which (see `InteractionOutcome`). It
   * does not throw for a timeout or a failing service: it returns
   * `{ status: "timeout" }` or `{ status: "error", error }`, and the caller
   * decides (an approver refuses). It throws `AbortedError` when `signal` fires.
   */
  async waitForInteraction(
    interactionId: string,
    options: WaitOptions,
  ): Promise<InteractionOutcome> {
    const schedule = resolvePollSchedule("waitForInteraction", options);
    fillRoutePath(this.routes.getInteraction.path, { interaction_id: interactionId });
    const result = await pollUntil({
      read: (signal) => this.getInteraction(interactionId, { signal }),
      isDone: (interaction) => terminalInteractionStates.has(interaction.state),
      schedule,
      signal: options.signal,
      label: `waitForInteraction(${interactionId})`,
      onTransientError: (error, consecutiveErrors) =>
        this.#logTransient("waitForInteraction", error, consecutiveErrors),
    });
    if (result.kind === "done") {
      const interaction = result.value;
      if (interaction.state === "answered") return { status: "answered", interaction };
      return {
        status: interaction.state as "expired" | "canceled" | "failed",
        interaction,
      };
    }
    const lastInteraction = result.last === undefined ? {} : { lastInteraction: result.last };
    this.#logger.info(
      { interactionId, outcome: result.kind, state: result.last?.state },
      "stopped waiting for interaction",
    );
    if (result.kind === "timeout") return { status: "timeout", ...lastInteraction };
    return { status: "error", error: result.error, ...lastInteraction };
  }

  /**
   * Polls a consent link until the subscriber activates it, it expires or is
   * revoked, or `timeoutMs` runs out (see `SubscriptionLinkOutcome`); same
   * rules as `waitForInteraction`.
   */
  async waitForSubscription(
    subscriptionLinkId: string,
    options: WaitOptions,
  ): Promise<SubscriptionLinkOutcome> {
    const schedule = resolvePollSchedule("waitForSubscription", options);
    fillRoutePath(this.routes.getSubscriptionLink.path, {
      subscription_link_id: subscriptionLinkId,
    });
    const result = await pollUntil({
      read: (signal) => this.getSubscriptionLink(subscriptionLinkId, { signal }),
      isDone: (link) => terminalSubscriptionLinkStates.has(link.state),
      schedule,
      signal: options.signal,
      label: `waitForSubscription(${subscriptionLinkId})`,
      onTransientError: (error, consecutiveErrors) =>
        this.#logTransient("waitForSubscription", error, consecutiveErrors),
    });
    if (result.kind === "done") {
      const link = result.value;
      if (link.state === "active") return { status: "active", link };
      return { status: link.state as "expired" | "revoked", link };
    }
    const lastLink = result.last === undefined ? {} : { lastLink: result.last };
    this.#logger.info(
      { subscriptionLinkId, outcome: result.kind, state: result.last?.state },
      "stopped waiting for subscription link",
    );
    if (result.kind === "timeout") return { status: "timeout", ...lastLink };
    return { status: "error", error: result.error, ...lastLink };
  }

  async #call(
    name: MessagingRouteName,
    parameters: Record<string, unknown>,
    body: unknown,
    options: RequestOptions | undefined,
    extra: { idempotencyKey?: string; idempotent?: boolean } = {},
  ): Promise<{ body: unknown; source: AnswerSource }> {
    const route = this.routes[name];
    const path = fillRoutePath(route.path, parameters);
    checkRequestOptions(name, options);
    const request = {
      method: route.method,
      path,
      body,
      signal: options?.signal,
      timeoutMs: options?.timeoutMs,
      ...extra,
    };
    const answer = await this.#http.requestJson<unknown>(request);
    return {
      body: answer,
      source: { method: route.method, url: this.#http.redact(this.#http.buildUrl(request)) },
    };
  }

  #logTransient(operation: string, error: Error, consecutiveErrors: number): void {
    this.#logger.warn(
      { operation, consecutiveErrors, error: this.#http.redact(error.message) },
      "poll failed, will poll again",
    );
  }
}
