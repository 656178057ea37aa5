import type {
  SendMessageInput,
  SendMessageOptions,
} from "../../clients/messaging/messaging-requests.js";
import type {
  AcceptedMessage,
  Interaction,
  Message,
  MessageCancellation,
  MessagingCapabilities,
  SubscriptionLink,
} from "../../clients/messaging/messaging-types.js";
import type { InteractionOutcome, WaitOptions } from "../../clients/messaging/wait-options.js";
import type { RequestOptions } from "../../clients/request-options.js";

/**
 * The part of a messaging client that `MessagingApprover` uses. `MessagingClient`
 * satisfies it; the agent depends on this shape, never on the concrete client,
 * so any object with these methods (a wrapper, a fake in a test) will do.
 */
export interface ApprovalMessagingClient {
  /** `GET /v1/capabilities`; the approver needs the `interactions` feature. */
  getCapabilities(options?: RequestOptions): Promise<MessagingCapabilities>;
  /** `GET /v1/subscription-links/{id}`; the approver's link must be `active`. */
  getSubscriptionLink(
    subscriptionLinkId: string,
    options?: RequestOptions,
  ): Promise<SubscriptionLink>;
  /** `POST /v1/messages`: sends the approval question. */
  sendMessage(input: SendMessageInput, options?: SendMessageOptions): Promise<AcceptedMessage>;
  /** `GET /v1/messages/{id}`: read after a failure to learn the delivery error. */
  getMessage(messageId: string, options?: RequestOptions): Promise<Message>;
  /** `POST /v1/messages/{id}/cancel`: withdraws a question nobody answered in time. */
  cancelMessage(messageId: string, options?: RequestOptions): Promise<MessageCancellation>;
  /** `GET /v1/interactions/{id}`: one read of the answer (durable runs). */
  getInteraction(interactionId: string, options?: RequestOptions): Promise<Interaction>;
  /** Polls the interaction until it ends or the wait runs out; throws only `AbortedError` for an outcome. */
  waitForInteraction(interactionId: string, options: WaitOptions): Promise<InteractionOutcome>;
}
