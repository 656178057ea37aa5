import type { Logger } from "pino";
import { redactText, type SecretRegistry } from "../../internal/redact.js";
import type { ApprovalRecord, RefusedRecord, ShadowVerdict } from "../approval-gate.js";
import { describeThrown } from "../describe-thrown.js";
import type { ApproverIdentity, RecognisedApprover } from "./approver-directory.js";
import type { StandingCoverage, StandingScope } from "./standing-approval.js";

/**
 * Who (or what) reached a decision: `person` (an answer to a question),
 * `policy` (a rule of the agent's `approvalPolicy`), `expiry` (nobody
 * answered in time), `standing` (a standing approval a person gave earlier
 * in the run covered the call), `gate` (the gate refused on its own: no
 * approver, an approver error, an answer for other arguments, ...).
 */
export type ApprovalDecider = "person" | "policy" | "expiry" | "standing" | "gate";

/**
 * One decision about one action, for the audit trail. It never holds
 * argument values (they may be secrets): the fingerprint identifies them.
 */
export interface ApprovalAuditRecord {
  /** The tool the action would run, e.g. `delete_callbacks`. */
  action: string;
  /** The model's tool call id. */
  toolCallId: string;
  /** The run that asked, when it has an id. */
  runId?: string;
  /** `sha256:` digest of the tool name, canonical arguments and target. */
  fingerprint: string;
  /** The agent's id of the approval, when an approver was asked (or a standing approval used). */
  approvalId?: string;
  /** The messaging interaction that carried the question, once one was created. */
  interactionId?: string;
  outcome: ApprovalRecord["outcome"];
  /** Who decided; set on the agent's records. */
  decidedBy?: ApprovalDecider;
  /** Why it was refused (`denied`, `policy_denied`, ...); absent unless refused. */
  code?: string;
  /** Why it was refused or expired, in words (what happened, never instructions to the model). */
  reason?: string;
  /** What the person wrote with their answer, when anything. */
  note?: string;
  /** The `approvalPolicy` rule that decided without asking anyone. */
  rule?: string;
  /** Shadow mode: what the policy's rules would have decided. */
  policy?: ShadowVerdict;
  /** The approver's link (the messaging subscription link) the question went to. */
  approverLink?: string;
  /** The approver's name, where the service gives one. */
  approvedBy?: string;
  /** `sha256:` digest of the question's text as it was sent. */
  questionDigest?: string;
  /** The person also approved the next calls like this one, within this scope. */
  standing?: StandingScope;
  /** The standing approval (its approval id, and which use) that let the call run without asking. */
  coveredBy?: StandingCoverage;
  /** The approver links that each approved, when the action needed several. */
  approvers?: string[];
  /**
   * Who answered, as the channel that asked recognised them (the
   * `authorize` principal, the MCP host's user, the local user), when the
   * approver says.
   */
  answeredBy?: ApproverIdentity;
  /**
   * With an `approverDirectory`: each person who answered, by directory id
   * and the channel evidence that recognised them (on approvals, each
   * person who approved, once; on refusals, those recognised among the
   * people who answered).
   */
  people?: RecognisedApprover[];
  /** ISO 8601: when the approval was asked, or when the check of an earlier one began. */
  requestedAt: string;
  /** ISO 8601: when this decision was reached. */
  decidedAt: string;
}

/**
 * Where an agent appends the audit record of every approval decision, e.g.
 * a `JsonlAuditLog` (a hash-chained JSON Lines file). A call a decision
 * lets run runs only once its record is appended.
 */
export interface ApprovalAuditLog {
  append(record: ApprovalAuditRecord): Promise<void>;
}

/** What the agent does with each decision. */
export interface ApprovalAuditSinks {
  log: ApprovalAuditLog | undefined;
  onApprovalDecided: ((record: ApprovalAuditRecord) => void | Promise<void>) | undefined;
  secrets: SecretRegistry;
  logger: Logger;
}

/** The call a decision is about, and where its `approval-result` event goes. */
export interface DecidedCall {
  toolName: string;
  toolCallId: string;
  runId: string | undefined;
  /** Emits `approval-result` for the decision; absent when its caller emits the event itself (a budget extension does). */
  emit?: ((approval: ApprovalRecord) => void) | undefined;
}

/**
 * The one writer of a decision: appends its audit record to the agent's
 * audit log, logs its audit line, hands the record to `onApprovalDecided`
 * and emits `approval-result`, in that order, once. Fails closed: an
 * approval whose record cannot be appended becomes a refusal
 * (`audit_not_recorded`), and that refusal is what is logged and emitted,
 * so nothing runs that the log does not show; what the hook throws is
 * logged, never the decision. A pending answer is not a decision yet: it is
 * logged and emitted, and recorded once it is answered.
 */
export async function publishApprovalDecision<Decision extends ApprovalRecord>(
  sinks: ApprovalAuditSinks,
  call: DecidedCall,
  decision: Decision,
  requestedAt: Date,
): Promise<Decision | RefusedRecord> {
  let final: Decision | RefusedRecord = decision;
  if (decision.outcome !== "pending" && (sinks.log || sinks.onApprovalDecided)) {
    let record = sinks.secrets.redactValue(auditRecordOf(call, decision, requestedAt));
    if (sinks.log) {
      try {
        await sinks.log.append(record);
      } catch (error) {
        const detail = redactText(sinks.secrets.redactText(describeThrown(error)));
        sinks.logger.error(
          { error: detail },
          "the approval decision could not be written to the audit log",
        );
        if (decision.outcome === "approved") {
          final = {
            outcome: "refused",
            fingerprint: decision.fingerprint,
            code: "audit_not_recorded",
            reason: `the approval could not be written to the audit log (${detail}), so the call was not run`,
            ...(decision.approvalId !== undefined ? { approvalId: decision.approvalId } : {}),
            ...(decision.interactionId !== undefined
              ? { interactionId: decision.interactionId }
              : {}),
          };
          record = sinks.secrets.redactValue(auditRecordOf(call, final, requestedAt));
        }
      }
    }
    if (sinks.onApprovalDecided) {
      try {
        await sinks.onApprovalDecided({ ...record });
      } catch (error) {
        sinks.logger.warn(
          { error: redactText(sinks.secrets.redactText(describeThrown(error))) },
          "onApprovalDecided threw; the decision stands",
        );
      }
    }
  }
  logApprovalDecision(sinks.logger, call.toolName, call.toolCallId, final);
  call.emit?.(final);
  return final;
}

/** The audit line of one decision, without arguments: who decided, and how. */
function logApprovalDecision(
  logger: Logger,
  toolName: string,
  toolCallId: string,
  record: ApprovalRecord,
): void {
  const decided = record.outcome !== "pending" ? record : undefined;
  const rule = decided && decided.outcome !== "expired" ? decided.rule : undefined;
  const coveredBy = decided?.outcome === "approved" ? decided.coveredBy : undefined;
  logger.info(
    {
      audit: "approval",
      tool: toolName,
      toolCallId,
      fingerprint: record.fingerprint,
      outcome: record.outcome,
      decidedBy: decided ? deciderOf(decided) : undefined,
      code: record.outcome === "refused" ? record.code : undefined,
      note: record.outcome === "refused" || record.outcome === "approved" ? record.note : undefined,
      approvalId: record.approvalId,
      interactionId: record.interactionId,
      approvedBy: record.outcome === "approved" ? record.approvedBy : undefined,
      people:
        record.outcome === "approved" || record.outcome === "refused"
          ? record.people?.map((person) => person.id)
          : undefined,
      rule,
      coveredBy,
    },
    coveredBy
      ? `approval approved for ${toolName} by the standing approval ${coveredBy.approvalId} (use ${coveredBy.use} of ${coveredBy.maxCalls})`
      : rule !== undefined
        ? `approval ${record.outcome} for ${toolName} by rule "${rule}"`
        : `approval ${record.outcome} for ${toolName}`,
  );
}

function auditRecordOf(
  call: DecidedCall,
  decision: Exclude<ApprovalRecord, { outcome: "pending" }>,
  requestedAt: Date,
): ApprovalAuditRecord {
  const optional = <Value>(key: string, value: Value | undefined) =>
    value === undefined ? {} : { [key]: value };
  return {
    action: call.toolName,
    toolCallId: call.toolCallId,
    ...optional("runId", call.runId),
    fingerprint: decision.fingerprint,
    ...optional("approvalId", decision.approvalId),
    ...optional("interactionId", decision.interactionId),
    outcome: decision.outcome,
    decidedBy: deciderOf(decision),
    ...(decision.outcome === "refused" ? { code: decision.code } : {}),
    ...(decision.outcome !== "approved" ? { reason: decision.reason } : {}),
    ...(decision.outcome !== "expired" ? optional("note", decision.note) : {}),
    ...(decision.outcome !== "expired" ? optional("rule", decision.rule) : {}),
    ...optional("policy", decision.policy),
    ...optional("approverLink", decision.approverLink),
    ...(decision.outcome === "approved" ? optional("approvedBy", decision.approvedBy) : {}),
    ...optional("questionDigest", decision.questionDigest),
    ...optional("answeredBy", decision.answeredBy),
    ...(decision.outcome !== "expired" ? optional("people", decision.people) : {}),
    ...(decision.outcome === "approved"
      ? {
          ...optional("standing", decision.standing),
          ...optional("coveredBy", decision.coveredBy),
          ...optional("approvers", decision.approvers),
        }
      : {}),
    requestedAt: requestedAt.toISOString(),
    decidedAt: new Date().toISOString(),
  };
}

function deciderOf(decision: Exclude<ApprovalRecord, { outcome: "pending" }>): ApprovalDecider {
  if (decision.outcome === "expired") return "expiry";
  if (decision.rule !== undefined) return "policy";
  if (decision.outcome === "approved") return decision.coveredBy ? "standing" : "person";
  return decision.code === "denied" ? "person" : "gate";
}
