import { maximumMessageTextLength } from "../../clients/messaging/messaging-requests.js";
import { canonicalJson } from "../../internal/canonical-json.js";
import { describeJsonValue, isJsonObject } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { toRfc3339 } from "../http/timestamps.js";
import { findLink, isPositiveInteger } from "./link-routes.js";
import type { MessagingService } from "./messaging-service.js";
import type { InteractionRecord, MessageOption, MessageRecord } from "./messaging-state.js";

const maximumOptions = 10;

/** A `POST /v1/messages` body that passed validation. */
interface MessageRequest {
  subscription_link_id: string;
  kind: "notification" | "interaction";
  text: string;
  options?: MessageOption[];
  expires_in_s?: number;
  metadata?: Record<string, unknown>;
}

/**
 * Messages and interactions: `POST /v1/messages` (Idempotency-Key required;
 * a repeated key replays the first answer), `GET /v1/messages/{id}`,
 * `POST /v1/messages/{id}/cancel`, `GET /v1/interactions/{id}`, and
 * `GET /v1/capabilities`.
 */
export function messageRoutes(service: MessagingService): Route[] {
  return [
    {
      method: "GET",
      pattern: "/v1/capabilities",
      handle: () => ({ body: { features: [...service.features] } }),
    },
    {
      method: "POST",
      pattern: "/v1/messages",
      handle: ({ body, headers }) => {
        const key = headers["idempotency-key"];
        if (typeof key !== "string" || key.trim() === "" || key.length > 255) {
          throw new SimulatorHttpError(
            400,
            "idempotency_key_required",
            "Idempotency-Key header is required (1 to 255 characters, unique per message); a retry with the same key returns the first answer instead of sending twice.",
          );
        }
        const fingerprint = canonicalJson(body ?? null);
        const earlier = service.state.idempotency.get(key);
        if (earlier) {
          if (earlier.requestFingerprint !== fingerprint) {
            throw new SimulatorHttpError(
              422,
              "idempotency_key_reused",
              `Idempotency-Key "${key}" was already used with a different request body; use a new key for a new message.`,
            );
          }
          return {
            status: earlier.status,
            body: structuredClone(earlier.body),
            headers: { "idempotent-replayed": "true" },
          };
        }
        const request = readMessageRequest(service, body);
        const answer = acceptMessage(service, request);
        service.state.idempotency.set(key, {
          requestFingerprint: fingerprint,
          status: 202,
          body: answer,
        });
        return { status: 202, body: structuredClone(answer) };
      },
    },
    {
      method: "GET",
      pattern: "/v1/messages/:messageId",
      handle: ({ params }) => ({ body: describeMessage(findMessage(service, params.messageId)) }),
    },
    {
      method: "POST",
      pattern: "/v1/messages/:messageId/cancel",
      handle: ({ params }) => {
        const message = findMessage(service, params.messageId);
        service.lifecycle.cancel(message);
        return { body: { message_id: message.message_id, state: message.state } };
      },
    },
    {
      method: "GET",
      pattern: "/v1/interactions/:interactionId",
      handle: ({ params }) => {
        const interaction = service.state.interactions.find(
          (candidate) => candidate.interaction_id === params.interactionId,
        );
        if (!interaction) {
          throw new SimulatorHttpError(
            404,
            "interaction_not_found",
            `Interaction ${params.interactionId ?? ""} does not exist.`,
          );
        }
        return { body: describeInteraction(interaction) };
      },
    },
  ];
}

function readMessageRequest(service: MessagingService, body: unknown): MessageRequest {
  if (!isJsonObject(body)) {
    throw invalid(
      `Body must be an object {subscription_link_id, kind, text, options?, expires_in_s?, metadata?}; got ${describeJsonValue(body)}.`,
    );
  }
  const { subscription_link_id: linkId, kind, text, options, expires_in_s, metadata } = body;
  if (typeof linkId !== "string" || linkId === "") {
    throw invalid("subscription_link_id is required (the id of an active subscription link).");
  }
  if (kind !== "notification" && kind !== "interaction") {
    throw invalid(`kind must be "notification" or "interaction"; got ${describeJsonValue(kind)}.`);
  }
  if (typeof text !== "string" || text.trim() === "" || text.length > maximumMessageTextLength) {
    throw invalid(
      `text must be a non-empty string of at most ${maximumMessageTextLength} characters.`,
    );
  }
  if (expires_in_s !== undefined && !isPositiveInteger(expires_in_s)) {
    throw invalid(
      `expires_in_s must be a positive integer number of seconds; got ${describeJsonValue(expires_in_s)}.`,
    );
  }
  if (metadata !== undefined && !isJsonObject(metadata)) {
    throw invalid(`metadata must be an object when given; got ${describeJsonValue(metadata)}.`);
  }
  const parsedOptions = options === undefined ? undefined : readOptions(kind, options);
  requireFeatures(service, kind, parsedOptions);

  const link = findLink(service, linkId);
  if (link.state !== "active") {
    throw new SimulatorHttpError(
      422,
      "subscription_link_not_active",
      `Subscription link ${linkId} is ${link.state}; messages can only go to an active link${link.state === "pending" ? " (the subscriber has not opened it yet)" : ""}.`,
    );
  }
  return {
    subscription_link_id: linkId,
    kind,
    text,
    ...(parsedOptions === undefined ? {} : { options: parsedOptions }),
    ...(expires_in_s === undefined ? {} : { expires_in_s: expires_in_s as number }),
    ...(metadata === undefined ? {} : { metadata: metadata as Record<string, unknown> }),
  };
}

function readOptions(kind: string, options: unknown): MessageOption[] {
  if (kind !== "interaction") {
    throw invalid(
      "options are only allowed on interaction messages; drop them or use kind interaction.",
    );
  }
  if (!Array.isArray(options) || options.length === 0 || options.length > maximumOptions) {
    throw invalid(`options must be an array of 1 to ${maximumOptions} {id, label} objects.`);
  }
  const ids = new Set<string>();
  return options.map((option, index) => {
    if (
      !isJsonObject(option) ||
      typeof option.id !== "string" ||
      option.id === "" ||
      typeof option.label !== "string" ||
      option.label === ""
    ) {
      throw invalid(`options[${index}] must be {id, label} with non-empty strings.`);
    }
    if (ids.has(option.id)) throw invalid(`options[${index}].id "${option.id}" is used twice.`);
    ids.add(option.id);
    return { id: option.id, label: option.label };
  });
}

function requireFeatures(
  service: MessagingService,
  kind: MessageRequest["kind"],
  options: MessageOption[] | undefined,
): void {
  const needed =
    kind === "notification"
      ? ["notifications"]
      : ["interactions", options === undefined ? "free_text" : "options"];
  const missing = needed.filter((feature) => !service.features.includes(feature));
  if (missing.length > 0) {
    throw new SimulatorHttpError(
      422,
      "feature_not_supported",
      `The provider does not support ${missing.join(", ")} (GET /v1/capabilities lists: ${service.features.join(", ") || "nothing"}).`,
    );
  }
}

function acceptMessage(
  service: MessagingService,
  request: MessageRequest,
): Record<string, unknown> {
  const now = toRfc3339(service.now());
  const message: MessageRecord = {
    message_id: service.newId(),
    subscription_link_id: request.subscription_link_id,
    kind: request.kind,
    text: request.text,
    ...(request.options ? { options: request.options } : {}),
    ...(request.metadata ? { metadata: request.metadata } : {}),
    state: "accepted",
    created_at: now,
    updated_at: now,
  };
  if (request.kind === "interaction") {
    const interaction: InteractionRecord = {
      interaction_id: service.newId(),
      message_id: message.message_id,
      subscription_link_id: request.subscription_link_id,
      state: "pending",
      text: request.text,
      options: request.options ?? [],
      metadata: request.metadata ?? {},
      created_at: now,
      ...(request.expires_in_s === undefined
        ? {}
        : {
            expires_at: toRfc3339(new Date(service.now().getTime() + request.expires_in_s * 1000)),
          }),
    };
    message.interaction_id = interaction.interaction_id;
    service.state.interactions.push(interaction);
  }
  service.state.messages.push(message);
  service.lifecycle.accepted(message, request.expires_in_s);
  return {
    message_id: message.message_id,
    ...(message.interaction_id ? { interaction_id: message.interaction_id } : {}),
    state: "accepted",
  };
}

function findMessage(service: MessagingService, messageId: string | undefined): MessageRecord {
  const message = service.state.messages.find((candidate) => candidate.message_id === messageId);
  if (!message) {
    throw new SimulatorHttpError(
      404,
      "message_not_found",
      `Message ${messageId ?? ""} does not exist.`,
    );
  }
  return message;
}

function describeMessage(message: MessageRecord): Record<string, unknown> {
  return {
    message_id: message.message_id,
    ...(message.interaction_id ? { interaction_id: message.interaction_id } : {}),
    state: message.state,
    ...(message.error ? { error: { ...message.error } } : {}),
    kind: message.kind,
    subscription_link_id: message.subscription_link_id,
    created_at: message.created_at,
    updated_at: message.updated_at,
  };
}

function describeInteraction(interaction: InteractionRecord): Record<string, unknown> {
  return {
    interaction_id: interaction.interaction_id,
    message_id: interaction.message_id,
    state: interaction.state,
    ...(interaction.answer ? { answer: { ...interaction.answer } } : {}),
    created_at: interaction.created_at,
    ...(interaction.expires_at ? { expires_at: interaction.expires_at } : {}),
  };
}

function invalid(message: string): SimulatorHttpError {
  return new SimulatorHttpError(400, "invalid_message", message);
}
