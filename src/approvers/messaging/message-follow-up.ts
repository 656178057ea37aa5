import type { MessageDeliveryError } from "../../clients/messaging/messaging-types.js";
import type { Logger } from "../../internal/logger.js";
import { redactText } from "../../internal/redact.js";
import type { ApprovalMessagingClient } from "./approval-messaging-client.js";
import { describeMessagingError } from "./describe-messaging-error.js";

/** How long a best-effort follow-up call may take; it runs after the caller's signal may have fired. */
const followUpTimeoutMs = 5_000;

/** Withdraws a question nobody should answer any more; best effort, never throws. */
export async function cancelQuestion(
  client: ApprovalMessagingClient,
  messageId: string,
  logger: Logger,
): Promise<void> {
  try {
    await client.cancelMessage(messageId, { signal: AbortSignal.timeout(followUpTimeoutMs) });
  } catch (error) {
    logger.warn(
      { messageId, error: describeMessagingError(error) },
      "could not cancel the approval message; the approver may still see the question, but an answer will not be used",
    );
  }
}

/**
 * `{ error }` (the delivery error in words, when the service gave one) when
 * the message reads back as `failed`; undefined when it did not fail or could
 * not be read. Never throws.
 */
export async function readDeliveryFailure(
  client: ApprovalMessagingClient,
  messageId: string,
  logger: Logger,
): Promise<{ error: string | undefined } | undefined> {
  try {
    const message = await client.getMessage(messageId, {
      signal: AbortSignal.timeout(followUpTimeoutMs),
    });
    if (message.state !== "failed") return undefined;
    return { error: describeDeliveryError(message.error) };
  } catch (error) {
    logger.warn(
      { messageId, error: describeMessagingError(error) },
      "could not read the approval message's delivery state",
    );
    return undefined;
  }
}

function describeDeliveryError(error: MessageDeliveryError | undefined): string | undefined {
  if (!error) return undefined;
  const parts = [error.code, error.message].filter(
    (part): part is string => typeof part === "string" && part.trim() !== "",
  );
  if (parts.length === 0) return undefined;
  const text = redactText(parts.join(": ").replace(/\s+/g, " "));
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
