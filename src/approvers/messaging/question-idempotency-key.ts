import { createHash } from "node:crypto";

/**
 * The `Idempotency-Key` of a question sent to the messaging service:
 * derived from the approval ids it asks about and its part (the link it
 * goes to), never fresh, so a run that goes on after a crash between
 * sending the question and saving its state (the same action, so the same
 * approval id) sends the same key, and the service answers with the message
 * it already has instead of asking the person again.
 */
export function questionIdempotencyKey(approvalIds: readonly string[], part: string): string {
  const digest = createHash("sha256")
    .update(`question\n${part}\n${approvalIds.join("\n")}`)
    .digest("hex");
  return `switchyard-question-${digest.slice(0, 40)}`;
}
