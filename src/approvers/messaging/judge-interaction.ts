import { sameFingerprint } from "../../agent/approval/fingerprint-check.js";
import type { RefusalCode } from "../../agent/refusal-code.js";
import type { Interaction } from "../../clients/messaging/messaging-types.js";
import { textDigest } from "../../internal/canonical-json.js";
import { duplicateJsonKey } from "../../internal/duplicate-json-key.js";
import { redactText } from "../../internal/redact.js";
import { escapeUntrustedText } from "../../internal/untrusted-text.js";
import { approvalOptions, editOption, standingOptionId } from "./approval-message-text.js";

/** What the answer must belong to. */
export interface ExpectedInteraction {
  interactionId: string;
  /** The message the question was sent in, as the service named it when it took the question. */
  messageId: string;
  /** The fingerprint of the action about to run. */
  fingerprint: string;
  /** The fingerprint this approver recorded when it created the interaction, when it did. */
  recordedFingerprint: string | undefined;
  /** `sha256:` digest of the question's text as sent, as the ticket recorded it, when it did. */
  questionDigest?: string | undefined;
  toolName: string;
  /** The question offered `edit` (the approver allows edits). */
  editsAllowed?: boolean;
  /** The fingerprint of the standing scope the question offered (`approve_standing`), when it offered one. */
  standingFingerprint?: string | undefined;
}

/**
 * How an interaction reads for one action. `approved` is not final yet (the
 * approver still checks the approval was not used before) and `failed`
 * still needs the delivery error, which the message carries.
 */
export type InteractionVerdict =
  | { outcome: "approved"; note?: string; standing?: true }
  | { outcome: "edited"; arguments: unknown }
  | { outcome: "expired"; reason: string }
  | { outcome: "pending" }
  | { outcome: "failed" }
  | { outcome: "refused"; code: RefusalCode; reason: string; note?: string };

const offeredOptionIds: ReadonlySet<string> = new Set(approvalOptions.map((option) => option.id));

/**
 * Reads an interaction as an approval decision, failing closed: only
 * `answered` with `option_id` exactly `approve`, on the interaction asked
 * about, of the message the question was sent in, whose fingerprint (as
 * recorded here, and as carried in its `metadata` when the service returns
 * it) is the action's, approves; a service that echoes the question (its
 * text, or the digest in its `metadata`) must echo the one sent.
 */
export function judgeInteraction(
  interaction: Interaction,
  expected: ExpectedInteraction,
): InteractionVerdict {
  const tool = `"${expected.toolName}"`;
  if (interaction.interactionId !== expected.interactionId) {
    return {
      outcome: "refused",
      code: "messaging_error",
      reason: `The messaging service answered with interaction "${interaction.interactionId}" when asked for "${expected.interactionId}", so no approval for ${tool} could be read and the action was not run.`,
    };
  }
  // The service chose the interaction's id: an id it gave another question reads that
  // question's answer, unless the message it answers for is the one this question was sent in.
  if (interaction.messageId !== expected.messageId) {
    const named =
      interaction.messageId === undefined
        ? "names no message"
        : `belongs to message "${escapeUntrustedText(String(interaction.messageId)).slice(0, 100)}"`;
    return {
      outcome: "refused",
      code: "messaging_error",
      reason: `The messaging service's interaction "${escapeUntrustedText(expected.interactionId).slice(0, 100)}" ${named}, not to message "${escapeUntrustedText(expected.messageId).slice(0, 100)}" that asked about ${tool}, so its answer is another question's and the action was not run.`,
    };
  }
  // The contract's read does not echo the question; a service that does (its text, or the
  // digest this approver put in the metadata) must echo the question this ticket sent.
  if (
    expected.questionDigest !== undefined &&
    echoedQuestionDigests(interaction).some((digest) => digest !== expected.questionDigest)
  ) {
    return {
      outcome: "refused",
      code: "messaging_error",
      reason: `The messaging service's interaction "${escapeUntrustedText(expected.interactionId).slice(0, 100)}" carries another question than the one sent about ${tool} (its text is not the text asked), so its answer is not to the question the person was shown about this action, and the action was not run.`,
    };
  }
  const carried = carriedFingerprint(interaction);
  if (
    (expected.recordedFingerprint !== undefined &&
      !sameFingerprint(expected.recordedFingerprint, expected.fingerprint)) ||
    (carried.present && !sameFingerprint(carried.value, expected.fingerprint))
  ) {
    return {
      outcome: "refused",
      code: "fingerprint_mismatch",
      reason: `The answer in interaction "${expected.interactionId}" belongs to an approval request for different arguments, so it does not approve this call of ${tool}; the action was not run.`,
    };
  }
  switch (interaction.state) {
    case "answered":
      return judgeAnswer(interaction, tool, expected);
    case "expired":
      return {
        outcome: "expired",
        reason: `The approval request for ${tool} expired before anyone answered, so the action was not run.`,
      };
    case "canceled":
      return {
        outcome: "refused",
        code: "canceled",
        reason: `The approval request for ${tool} was cancelled before anyone answered, so the action was not run.`,
      };
    case "failed":
      return { outcome: "failed" };
    default:
      // `pending`, or a state this version does not know: not an answer yet.
      return { outcome: "pending" };
  }
}

/** The refusal reason of an undeliverable question, with the service's delivery error when known. */
export function deliveryFailedReason(toolName: string, deliveryError: string | undefined): string {
  const because = deliveryError ? ` (${deliveryError})` : "";
  return `The approval request for "${toolName}" could not be delivered to the approver${because}, so the action was not run.`;
}

function judgeAnswer(
  interaction: Interaction,
  tool: string,
  expected: ExpectedInteraction,
): InteractionVerdict {
  const editsAllowed = expected.editsAllowed === true;
  const optionId = interaction.answer?.optionId;
  const text = interaction.answer?.text?.trim();
  // The note is the person's own words: the agent quotes it to the model as theirs.
  const note = text ? redactText(text).slice(0, 500) : undefined;
  if (optionId === "approve") return { outcome: "approved", ...(note ? { note } : {}) };
  if (optionId === standingOptionId && expected.standingFingerprint !== undefined) {
    // The scope read must be the one the question carried, as sent.
    const carried = (interaction.metadata as Record<string, unknown> | undefined)?.[
      standingOptionId
    ];
    if (carried !== undefined && !sameFingerprint(carried, expected.standingFingerprint)) {
      return {
        outcome: "refused",
        code: "fingerprint_mismatch",
        reason: `The standing approval in interaction "${expected.interactionId}" was offered for another scope, so it does not approve this call of ${tool}; the action was not run.`,
      };
    }
    return { outcome: "approved", standing: true, ...(note ? { note } : {}) };
  }
  if (optionId === editOption.id && editsAllowed) {
    try {
      const edit = interaction.answer?.text ?? "";
      const parsed: unknown = JSON.parse(edit);
      const twice = duplicateJsonKey(edit);
      if (twice !== undefined) {
        return {
          outcome: "refused",
          code: "invalid_edit",
          reason: `The change to ${tool} the approver sent gives "${redactText(twice).slice(0, 100)}" twice, so which value they meant is unclear, and nothing was run.`,
        };
      }
      return { outcome: "edited", arguments: parsed };
    } catch (error) {
      return {
        outcome: "refused",
        code: "invalid_edit",
        reason: `The change to ${tool} the approver sent is not JSON (${(error as Error).message}), so nothing was run.`,
      };
    }
  }
  if (optionId === "deny") {
    // The reason states what happened; what the model should do next is the agent's to add.
    return {
      outcome: "refused",
      code: "denied",
      reason: `The approver denied ${tool}.${note ? ` Their note: "${note}".` : ""}`,
      ...(note ? { note } : {}),
    };
  }
  const given =
    optionId === undefined
      ? "no option"
      : `the option "${redactText(optionId).slice(0, 100)}", which was not offered`;
  return {
    outcome: "refused",
    code: "unreadable_answer",
    reason: `The answer to the approval request for ${tool} chose ${given} (only ${[...offeredOptionIds].join(" or ")} count), so it was not read as an approval and the action was not run.`,
  };
}

/**
 * The metadata key under which a question carries the digest of its own
 * text, for a service that echoes the metadata in its interaction reads.
 */
export const questionDigestKey = "question_digest";

/**
 * The digests of the question an interaction read echoes, when the service
 * echoes any: its `text` (the question as the service holds it), and the
 * digest the question carried in its `metadata`. Anything there but a
 * string counts as another question's.
 */
function echoedQuestionDigests(interaction: Interaction): string[] {
  const digests: string[] = [];
  const { text, metadata } = interaction;
  if (text !== undefined && text !== null) {
    digests.push(typeof text === "string" ? textDigest(text) : "");
  }
  if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
    const carried = (metadata as Record<string, unknown>)[questionDigestKey];
    if (carried !== undefined && carried !== null) {
      digests.push(typeof carried === "string" ? carried : "");
    }
  }
  return digests;
}

function carriedFingerprint(interaction: Interaction): { present: boolean; value?: unknown } {
  const metadata = interaction.metadata;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    return { present: false };
  }
  const value = (metadata as Record<string, unknown>).fingerprint;
  return value === undefined || value === null ? { present: false } : { present: true, value };
}
