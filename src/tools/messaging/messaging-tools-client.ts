import type { MessagingClient } from "../../clients/messaging/messaging-client.js";

/** The `MessagingClient` methods the messaging tools call, so a wrapper or a test double can stand in. */
export type MessagingToolsClient = Pick<
  MessagingClient,
  "sendMessage" | "getMessage" | "cancelMessage" | "getInteraction"
>;

/** The method names of `MessagingToolsClient`, checked when the tools are built. */
export const messagingToolsClientMethods: readonly (keyof MessagingToolsClient)[] = [
  "sendMessage",
  "getMessage",
  "cancelMessage",
  "getInteraction",
];
