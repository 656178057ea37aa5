/**
 * `switchyard-agents/messaging`: the messaging delivery service's messages,
 * interactions, subscription links and routes, beside `MessagingClient`
 * from the main entry.
 *
 * @module switchyard-agents/messaging
 */
export type {
  CreateSubscriptionLinkInput,
  MessageKind,
  MessageOption,
  SendMessageInput,
  SendMessageOptions,
} from "../clients/messaging/messaging-requests.js";
export {
  type MessagingRoute,
  type MessagingRouteName,
  type MessagingRouteOverrides,
  type MessagingRoutes,
  messagingRoutes,
} from "../clients/messaging/messaging-routes.js";
export {
  type AcceptedMessage,
  type Interaction,
  type InteractionAnswer,
  type InteractionState,
  type Message,
  type MessageCancellation,
  type MessageDeliveryError,
  type MessageState,
  type MessagingCapabilities,
  type SubscriptionLink,
  type SubscriptionLinkState,
  terminalInteractionStates,
  terminalSubscriptionLinkStates,
  type UnknownState,
} from "../clients/messaging/messaging-types.js";
export type {
  InteractionOutcome,
  SubscriptionLinkOutcome,
  WaitOptions,
} from "../clients/messaging/wait-options.js";
