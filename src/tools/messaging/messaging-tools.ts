import type { AnyTool } from "../tool.js";
import {
  checkToolSetClient,
  clientTarget,
  finishToolSet,
  type ToolSetOptions,
  toolSetApprovalRules,
  withClientSecrets,
} from "../tool-set-options.js";
import {
  cancelMessageTool,
  getInteractionTool,
  getMessageStatusTool,
  sendNotificationTool,
} from "./message-tools.js";
import {
  defaultMessagingToolApprovals,
  type MessagingToolArguments,
  type MessagingToolName,
} from "./messaging-tool-names.js";
import {
  type MessagingToolsClient,
  messagingToolsClientMethods,
} from "./messaging-tools-client.js";

/** Options of `messagingTools`. */
export type MessagingToolsOptions = ToolSetOptions<MessagingToolArguments>;

/**
 * The messaging tools, over one `MessagingClient`: send_notification,
 * get_message_status, cancel_message and get_interaction. None needs
 * approval by default (`defaultMessagingToolApprovals`); `options.needsApproval`
 * changes that per tool.
 *
 * @throws ConfigurationError when the client lacks a method or an option is wrong.
 *
 * @example
 * const tools = messagingTools(messaging, { needsApproval: { send_notification: true } });
 */
export function messagingTools(
  messagingClient: MessagingToolsClient,
  options?: MessagingToolsOptions,
): AnyTool<MessagingToolName>[] {
  checkToolSetClient(
    "messagingTools",
    messagingClient,
    messagingToolsClientMethods,
    "a MessagingClient, e.g. new MessagingClient({ baseUrl, token })",
  );
  const rules = toolSetApprovalRules<MessagingToolArguments>(
    "messagingTools",
    defaultMessagingToolApprovals,
    options,
  );
  const tools = [
    sendNotificationTool(messagingClient, defaultMessagingToolApprovals.send_notification),
    getMessageStatusTool(messagingClient, defaultMessagingToolApprovals.get_message_status),
    cancelMessageTool(messagingClient, defaultMessagingToolApprovals.cancel_message),
    getInteractionTool(messagingClient, defaultMessagingToolApprovals.get_interaction),
  ];
  return withClientSecrets(
    messagingClient,
    finishToolSet(tools, rules, clientTarget("messaging", messagingClient)),
  );
}
