/**
 * Answers of the messaging service (docs/contract.md §4), as `MessagingClient`
 * returns them: known fields in camelCase, every other field the service sent
 * kept under its wire name. States the service sends that this version does
 * not know are kept as they come (typed `string`), never dropped.
 */

/** A state string this version does not know; kept so nothing is lost. */
export type UnknownState = string & {};

/** What the messaging provider currently supports. */
export interface MessagingCapabilities {
  /** E.g. `notifications`, `interactions`, `options`, `free_text`. */
  features: string[];
  [field: string]: unknown;
}

/** Activation state of a one-time consent link. */
export type SubscriptionLinkState = "pending" | "active" | "expired" | "revoked";

/** A one-time consent link; the subscriber opens `url` to give consent. */
export interface SubscriptionLink {
  subscriptionLinkId: string;
  /** The consent address to hand to the subscriber (absent if the service did not send one). */
  url?: string;
  state: SubscriptionLinkState | UnknownState;
  [field: string]: unknown;
}

/** Delivery progress of a message. */
export type MessageState = "accepted" | "sent" | "delivered" | "failed" | "canceled" | "expired";

/** Why a delivery failed, when the service says. A plain-text reason arrives as `message`. */
export interface MessageDeliveryError {
  code?: string;
  message?: string;
  [field: string]: unknown;
}

/** The service's receipt for `sendMessage`. */
export interface AcceptedMessage {
  messageId: string;
  /** Present for `kind: "interaction"`: the id to read the answer from. */
  interactionId?: string;
  state: MessageState | UnknownState;
  /**
   * The `Idempotency-Key` this message was sent with (not a field of the
   * answer). Sending again with the same key never delivers twice.
   */
  idempotencyKey: string;
  [field: string]: unknown;
}

/** A message and its delivery progress. */
export interface Message {
  messageId: string;
  interactionId?: string;
  state: MessageState | UnknownState;
  error?: MessageDeliveryError;
  [field: string]: unknown;
}

/**
 * The answer to a cancellation request. `state` is absent when the service
 * answered with an empty body; read the message to learn the outcome.
 */
export interface MessageCancellation {
  messageId: string;
  state?: MessageState | UnknownState;
  [field: string]: unknown;
}

/** Where an interaction stands: waiting, answered, or ended without an answer. */
export type InteractionState = "pending" | "answered" | "expired" | "canceled" | "failed";

/** The states after which an interaction never changes again. */
export const terminalInteractionStates: ReadonlySet<string> = new Set<InteractionState>([
  "answered",
  "expired",
  "canceled",
  "failed",
]);

/** The states after which a subscription link never changes again. */
export const terminalSubscriptionLinkStates: ReadonlySet<string> = new Set<SubscriptionLinkState>([
  "active",
  "expired",
  "revoked",
]);

/** A human's answer to an interaction. */
export interface InteractionAnswer {
  /** The id of the option chosen, e.g. `approve`; absent for a free-text-only answer. */
  optionId?: string;
  /** Free text the person wrote, when any. */
  text?: string;
  /** When the answer was given, as the service sent it (ISO 8601 when it sent a timestamp number). */
  answeredAt?: string;
  [field: string]: unknown;
}

/** A question put to a human and its outcome. */
export interface Interaction {
  interactionId: string;
  /** The message that carried the question (absent if the service did not send it). */
  messageId?: string;
  state: InteractionState | UnknownState;
  answer?: InteractionAnswer;
  [field: string]: unknown;
}
