import type { Logger } from "pino";
import { redactText } from "../../internal/redact.js";
import { abortable } from "../abortable.js";
import { type ApprovalRecord, gateRefusal, judgeDecision } from "../approval-gate.js";
import type { ApprovalAction, Approver } from "../approver.js";
import { describeThrown } from "../describe-thrown.js";

/** What the gate needs to ask about the gated calls of one step together. */
export interface BatchApprovalGateOptions {
  /** An approver with `requestApprovals`. */
  approver: Approver & Required<Pick<Approver, "requestApprovals">>;
  /** Two or more actions, in the order the model asked for them. */
  actions: readonly ApprovalAction[];
  signal: AbortSignal;
  logger: Logger;
  allowPending: boolean;
  runId?: string;
  /** The run's task, handed to the approver (`ApprovalContext.task`). */
  task?: string;
}

/**
 * Asks the approver about several actions in one question and judges each
 * answer on its own, as {@link judgeDecision} judges one: anything but an
 * approval of exactly that action refuses it. Fails closed for the whole
 * question when the approver throws, is aborted, or does not answer with one
 * decision per action; an approval or pending answer naming the same
 * interaction id as another item's is refused, since each approval is spent
 * once and on its own. Writes no audit line: the agent's settling step
 * writes each decision's once it is final.
 */
export async function decideBatch(options: BatchApprovalGateOptions): Promise<ApprovalRecord[]> {
  const { approver, actions, signal } = options;
  const refuseAll = (code: Parameters<typeof gateRefusal>[1], reason: string) =>
    actions.map((action) => gateRefusal(action, code, reason));
  if (signal.aborted) return refuseAll("aborted", "the run was aborted before approval was asked");
  let decisions: unknown;
  try {
    decisions = await abortable(
      approver.requestApprovals(actions, {
        signal,
        logger: options.logger,
        allowPending: options.allowPending,
        ...(options.runId !== undefined ? { runId: options.runId } : {}),
        ...(options.task !== undefined ? { task: options.task } : {}),
      }) as Promise<unknown>,
      signal,
    );
  } catch (error) {
    if (signal.aborted)
      return refuseAll("aborted", "the run was aborted while waiting for approval");
    return refuseAll("approver_error", `the approver failed: ${redactText(describeThrown(error))}`);
  }
  if (signal.aborted) return refuseAll("aborted", "the run was aborted while waiting for approval");
  if (!Array.isArray(decisions) || decisions.length !== actions.length) {
    return refuseAll(
      "invalid_decision",
      `the approver asked about ${actions.length} actions together but did not give one answer for each`,
    );
  }
  const records = actions.map((action, index) =>
    judgeDecision(decisions[index], { action, allowPending: options.allowPending }),
  );
  return refuseSharedQuestionIds(records, actions);
}

/**
 * Two items approved (or pending) under one interaction id would share one
 * once-only record: the second would be refused when it starts, or, worse,
 * an answer meant for one would be read for both. Both are refused here.
 */
function refuseSharedQuestionIds(
  records: ApprovalRecord[],
  actions: readonly ApprovalAction[],
): ApprovalRecord[] {
  const counts = new Map<string, number>();
  for (const record of records) {
    if (record.outcome !== "approved" && record.outcome !== "pending") continue;
    if (record.interactionId === undefined) continue;
    counts.set(record.interactionId, (counts.get(record.interactionId) ?? 0) + 1);
  }
  return records.map((record, index) => {
    if (record.outcome !== "approved" && record.outcome !== "pending") return record;
    if ((counts.get(record.interactionId ?? "") ?? 0) < 2) return record;
    return gateRefusal(
      actions[index] as ApprovalAction,
      "invalid_decision",
      `the approver answered for several actions under one interaction id ("${record.interactionId}"), and each approval must be its own, used once`,
      record.interactionId,
    );
  });
}
