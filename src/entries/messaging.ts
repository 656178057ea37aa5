/**
 * `switchyard-agents/messaging`: the messaging delivery service's messages,
 * interactions, subscription links and routes, beside `MessagingClient`
 * from the main entry.
 *
 * @module switchyard-agents/messaging
 */
export type {
  CreateSubscriptionLinkInput,
  MessageOption,
  SendMessageInput,
  SendMessageOptions,
} from "../clients/messaging/messaging-requests.js";
export { messagingRoutes } from "../clients/messaging/messaging-routes.js";
export type {
  AcceptedMessage,
  Interaction,
  InteractionAnswer,
  InteractionState,
  Message,
  MessageState,
  MessagingCapabilities,
  SubscriptionLink,
  SubscriptionLinkState,
} from "../clients/messaging/messaging-types.js";
export type {
  InteractionOutcome,
  SubscriptionLinkOutcome,
  WaitOptions,
} from "../clients/messaging/wait-options.js";
