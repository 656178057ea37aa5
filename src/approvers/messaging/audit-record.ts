import type { ApprovalAuditRecord } from "../../agent/approval/approval-audit-record.js";
import type { ApprovalAction, ApprovalDecision } from "../../agent/approver.js";
import type { Logger } from "../../internal/logger.js";
import { redactText } from "../../internal/redact.js";

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
    ...(decision.outcome !== "pending" && decision.approverLink !== undefined
      ? { approverLink: decision.approverLink }
      : {}),
    ...(decision.outcome !== "pending" && decision.questionDigest !== undefined
      ? { questionDigest: decision.questionDigest }
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
