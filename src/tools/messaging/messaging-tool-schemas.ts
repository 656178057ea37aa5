import { buildOnFirstUse } from "../../internal/build-on-first-use.js";
import { loadZod } from "../../internal/load-zod.js";

/**
 * Parameter schemas of the messaging tools, carrying the rules
 * `MessagingClient` checks (non-empty ids and text).
 */

/** Longest notification text a model may send. */
export const maximumNotificationLength = 4000;

/** The schemas, built once on first use (so importing Switchyard does not load zod). */
function buildMessagingToolSchemas() {
  const { z } = loadZod();

  function identifier(what: string) {
    return z
      .string({ error: `must be a string: ${what}` })
      .regex(/\S/, `must not be empty: ${what}`);
  }

  /** send_notification */
  const sendNotificationParameters = z.strictObject({
    subscription_link_id: identifier(
      "the id of the subscriber's active subscription link",
    ).describe("The subscription link of the person to notify (it must be active)."),
    text: z
      .string({ error: "must be a string: what the person should read" })
      .regex(/\S/, "must not be empty: write what the person should read")
      .max(
        maximumNotificationLength,
        `must be at most ${maximumNotificationLength} characters: shorten it`,
      )
      .describe("What the person reads."),
  });

  const messageId = identifier("the message_id send_notification returned").describe(
    "The message_id send_notification returned.",
  );

  /** get_message_status */
  const getMessageStatusParameters = z.strictObject({ message_id: messageId });

  /** cancel_message */
  const cancelMessageParameters = z.strictObject({ message_id: messageId });

  /** get_interaction */
  const getInteractionParameters = z.strictObject({
    interaction_id: identifier("the id of the interaction to read").describe(
      "The interaction's id, as the message status gives it.",
    ),
  });
  return {
    sendNotificationParameters,
    getMessageStatusParameters,
    cancelMessageParameters,
    getInteractionParameters,
  };
}

/** The messaging tools' parameter schemas, by name. */
export type MessagingToolSchemas = ReturnType<typeof buildMessagingToolSchemas>;

/** The messaging tools' parameter schemas, built on the first call. */
export const messagingToolSchemas: () => MessagingToolSchemas =
  buildOnFirstUse(buildMessagingToolSchemas);
