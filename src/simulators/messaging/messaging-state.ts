/** Activation state of a subscription link. */
export type LinkState = "pending" | "active" | "expired" | "revoked";

/** Delivery state of a message. */
export type MessageState = "accepted" | "sent" | "delivered" | "failed" | "canceled" | "expired";

/** State of an interaction (the human answer or its terminal outcome). */
export type InteractionState = "pending" | "answered" | "expired" | "canceled" | "failed";

/** A one-time consent link. */
export interface SubscriptionLink {
  subscription_link_id: string;
  url: string;
  state: LinkState;
  label?: string;
  created_at: string;
  expires_at?: string;
  activated_at?: string;
}

/** A choice offered with an interaction. */
export interface MessageOption {
  id: string;
  label: string;
}

/** A durable notification or interaction message. */
export interface MessageRecord {
  message_id: string;
  subscription_link_id: string;
  kind: "notification" | "interaction";
  text: string;
  options?: MessageOption[];
  metadata?: Record<string, unknown>;
  interaction_id?: string;
  state: MessageState;
  error?: { code: string; message: string };
  created_at: string;
  updated_at: string;
}

/** The answer of an interaction. */
export interface InteractionAnswer {
  option_id: string;
  text?: string;
  answered_at: string;
}

/** An interaction: a question waiting for a person's answer. */
export interface InteractionRecord {
  interaction_id: string;
  message_id: string;
  subscription_link_id: string;
  state: InteractionState;
  text: string;
  options: MessageOption[];
  metadata: Record<string, unknown>;
  answer?: InteractionAnswer;
  created_at: string;
  expires_at?: string;
}

/** A stored answer to a `POST /v1/messages`, replayed for a repeated Idempotency-Key. */
export interface IdempotentAnswer {
  requestFingerprint: string;
  status: number;
  body: Record<string, unknown>;
}

/** Everything the messaging simulator holds. Tests may read and change it. */
export interface MessagingState {
  links: SubscriptionLink[];
  messages: MessageRecord[];
  interactions: InteractionRecord[];
  idempotency: Map<string, IdempotentAnswer>;
}
