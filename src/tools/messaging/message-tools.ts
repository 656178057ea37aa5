import type { MessageDeliveryError } from "../../clients/messaging/messaging-types.js";
import { defineTool } from "../define-tool.js";
import { scrubResult } from "../scrub-result.js";
import type { NeedsApproval, Tool } from "../tool.js";
import type { MessagingToolArguments } from "./messaging-tool-names.js";
import { maximumNotificationLength, messagingToolSchemas } from "./messaging-tool-schemas.js";
import type { MessagingToolsClient } from "./messaging-tools-client.js";

/** Result of send_notification and cancel_message. */
export interface MessageStateResult {
  message_id: string;
  state: string;
}

/** Result of get_message_status. */
export interface MessageStatusResult {
  message_id: string;
  state: string;
  interaction_id?: string;
  /** Why delivery failed, when the service says (an object, never a bare string). */
  error?: { code?: string; message?: string };
}

/** Result of get_interaction. */
export interface InteractionResult {
  interaction_id: string;
  state: string;
  answer?: { option_id?: string; text?: string; answered_at?: string };
}

/** send_notification: a one-way message to a subscriber. */
export function sendNotificationTool(
  client: MessagingToolsClient,
  needsApproval: NeedsApproval<MessagingToolArguments["send_notification"]>,
): Tool<MessagingToolArguments["send_notification"], MessageStateResult> {
  return defineTool({
    name: "send_notification",
    description: `Sends a one-way notification (no answer expected) to the person behind an active subscription link. text: 1 to ${maximumNotificationLength} characters. Returns {message_id, state}; state "accepted" means the service took it for delivery, not that it arrived: check with get_message_status. Each call sends a new message, so do not call it again for the same text.`,
    parameters: messagingToolSchemas().sendNotificationParameters,
    needsApproval,
    execute: async ({ subscription_link_id, text }, { signal, idempotencyKey }) => {
      // The agent's key (from the run, the step and the call's content): the
      // same call asked again in a resumed step is not sent twice.
      const accepted = await client.sendMessage(
        { subscriptionLinkId: subscription_link_id, kind: "notification", text },
        { signal, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) },
      );
      return scrubResult({ message_id: accepted.messageId, state: accepted.state });
    },
  });
}

/** get_message_status: delivery progress of a message. */
export function getMessageStatusTool(
  client: MessagingToolsClient,
  needsApproval: NeedsApproval<MessagingToolArguments["get_message_status"]>,
): Tool<MessagingToolArguments["get_message_status"], MessageStatusResult> {
  return defineTool({
    name: "get_message_status",
    description:
      "Reads how far delivery of a message got. Returns {message_id, state, interaction_id?, error?}; state is one of accepted, sent, delivered, failed, canceled, expired; error {code?, message?} says why a delivery failed. Read-only.",
    parameters: messagingToolSchemas().getMessageStatusParameters,
    needsApproval,
    readOnly: true,
    execute: async ({ message_id }, { signal }) => {
      const message = await client.getMessage(message_id, { signal });
      const error = deliveryError(message.error);
      const result: MessageStatusResult = {
        message_id: message.messageId,
        state: message.state,
        ...(message.interactionId !== undefined ? { interaction_id: message.interactionId } : {}),
        ...(error ? { error } : {}),
      };
      return scrubResult(result);
    },
  });
}

/** cancel_message: stops delivery of a message. */
export function cancelMessageTool(
  client: MessagingToolsClient,
  needsApproval: NeedsApproval<MessagingToolArguments["cancel_message"]>,
): Tool<MessagingToolArguments["cancel_message"], MessageStateResult> {
  return defineTool({
    name: "cancel_message",
    description:
      'Stops delivery of a message that has not been delivered yet, and ends its interaction if it has one. A message already delivered stays delivered. Returns {message_id, state}, the state after the request (e.g. "canceled" or "delivered"). Cancelling twice changes nothing.',
    parameters: messagingToolSchemas().cancelMessageParameters,
    needsApproval,
    destructive: true,
    idempotent: true,
    execute: async ({ message_id }, { signal }) => {
      const cancellation = await client.cancelMessage(message_id, { signal });
      // An empty answer leaves the outcome open: the message itself says how it ended.
      const state = cancellation.state ?? (await client.getMessage(message_id, { signal })).state;
      return scrubResult({ message_id: cancellation.messageId, state });
    },
  });
}

/** get_interaction: a question put to a person and its answer. */
export function getInteractionTool(
  client: MessagingToolsClient,
  needsApproval: NeedsApproval<MessagingToolArguments["get_interaction"]>,
): Tool<MessagingToolArguments["get_interaction"], InteractionResult> {
  return defineTool({
    name: "get_interaction",
    description:
      "Reads an interaction (a question put to a person) and its answer. Returns {interaction_id, state, answer?}; state is pending, answered, expired, canceled or failed; answer {option_id?, text?, answered_at?} is present once answered. Read-only.",
    parameters: messagingToolSchemas().getInteractionParameters,
    needsApproval,
    readOnly: true,
    execute: async ({ interaction_id }, { signal }) => {
      const interaction = await client.getInteraction(interaction_id, { signal });
      const answer = interaction.answer;
      const result: InteractionResult = {
        interaction_id: interaction.interactionId,
        state: interaction.state,
        ...(answer
          ? {
              answer: {
                ...(answer.optionId !== undefined ? { option_id: answer.optionId } : {}),
                ...(answer.text !== undefined ? { text: answer.text } : {}),
                ...(answer.answeredAt !== undefined ? { answered_at: answer.answeredAt } : {}),
              },
            }
          : {}),
      };
      return scrubResult(result);
    },
  });
}

function deliveryError(
  error: MessageDeliveryError | undefined,
): { code?: string; message?: string } | undefined {
  if (!error) return undefined;
  const view = {
    ...(typeof error.code === "string" ? { code: error.code } : {}),
    ...(typeof error.message === "string" ? { message: error.message } : {}),
  };
  return Object.keys(view).length > 0 ? view : undefined;
}
