import type { ApprovalAction, ApprovalDecision } from "../../agent/approver.js";
import type { Logger } from "../../internal/logger.js";
import { redactText } from "../../internal/redact.js";

/**
 * What an approver decided about one action, for the audit trail. It never
 * holds argument values (they may be secrets): the fingerprint identifies them.
 */
export interface ApprovalAuditRecord {
  /** The tool the action would run, e.g. `delete_callbacks`. */
  action: string;
  /** The model's tool call id. */
  toolCallId: string;
  /** The run that asked, when it has an id. */
  runId?: string;
  /** `sha256:` digest of the tool name and canonical arguments. */
  fingerprint: string;
  /** The messaging interaction that carried the question, once one was created. */
  interactionId?: string;
  outcome: ApprovalDecision["outcome"];
  /** Why it was refused (`denied`, `timeout`, ...); absent unless refused. */
  code?: string;
  /** Why it was refused or expired, in words (what happened, never instructions to the model). */
  reason?: string;
  /** What the person wrote with their answer, when anything. */
  note?: string;
  /** ISO 8601: when the approval was asked, or when the check of an earlier one began. */
  requestedAt: string;
  /** ISO 8601: when this decision was reached. */
  decidedAt: string;
}

/** Builds the audit record of one decision. */
export function buildAuditRecord(
  action: ApprovalAction,
  decision: ApprovalDecision,
  times: { requestedAt: Date; decidedAt: Date; runId?: string | undefined },
): ApprovalAuditRecord {
  const interactionId = decision.interactionId;
  return {
    action: action.toolName,
    toolCallId: action.toolCallId,
    ...(times.runId !== undefined ? { runId: times.runId } : {}),
    fingerprint: action.fingerprint,
    ...(interactionId !== undefined ? { interactionId } : {}),
    outcome: decision.outcome,
    ...(decision.outcome === "refused"
      ? {
          code: decision.code,
          reason: redactText(decision.reason),
          ...(decision.note !== undefined ? { note: redactText(decision.note) } : {}),
        }
      : {}),
    ...(decision.outcome === "expired" ? { reason: redactText(decision.reason) } : {}),
    ...(decision.outcome === "approved" && decision.note !== undefined
      ? { note: redactText(decision.note) }
      : {}),
    requestedAt: times.requestedAt.toISOString(),
    decidedAt: times.decidedAt.toISOString(),
  };
}

/**
 * Logs the record at info level (`msg: "approval decision"`) and hands it to
 * `onDecision`; a failing `onDecision` is logged, never allowed to change the decision.
 */
export async function publishAuditRecord(
  record: ApprovalAuditRecord,
  logger: Logger,
  onDecision: ((record: ApprovalAuditRecord) => void | Promise<void>) | undefined,
): Promise<void> {
  logger.info(record, "approval decision");
  if (!onDecision) return;
  try {
    await onDecision({ ...record });
  } catch (error) {
    logger.warn(
      { fingerprint: record.fingerprint, error: redactText(describeError(error)) },
      "onDecision failed; the decision stands",
    );
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
