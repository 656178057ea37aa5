import type { output } from "zod";
import type { MessagingToolSchemas } from "./messaging-tool-schemas.js";

/** Names of the tools `messagingTools` builds, in the order it returns them. */
export const messagingToolNames = [
  "send_notification",
  "get_message_status",
  "cancel_message",
  "get_interaction",
] as const;

/** One messaging tool's name, e.g. `send_notification`. */
export type MessagingToolName = (typeof messagingToolNames)[number];

/** The parsed arguments each messaging tool runs with (what a `needsApproval` function receives). */
export interface MessagingToolArguments {
  send_notification: output<MessagingToolSchemas["sendNotificationParameters"]>;
  get_message_status: output<MessagingToolSchemas["getMessageStatusParameters"]>;
  cancel_message: output<MessagingToolSchemas["cancelMessageParameters"]>;
  get_interaction: output<MessagingToolSchemas["getInteractionParameters"]>;
}

/** No messaging tool needs approval unless `needsApproval` says otherwise. */
export const defaultMessagingToolApprovals: Readonly<Record<MessagingToolName, boolean>> =
  Object.freeze({
    send_notification: false,
    get_message_status: false,
    cancel_message: false,
    get_interaction: false,
  });
