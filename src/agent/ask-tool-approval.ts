import type { Logger } from "pino";
import { actionFingerprint } from "../internal/canonical-json.js";
import type { ToolContext } from "../tools/tool.js";
import {
  type ApprovalAuditSinks,
  publishApprovalDecision,
} from "./approval/approval-audit-record.js";
import { newApprovalId } from "./approval/approval-id.js";
import {
  type ApproverCheck,
  checkApprovers,
  whoMayApproveFor,
} from "./approval/check-approvers.js";
import { unwrappedApprover } from "./approval/redacting-approver.js";
import { consultApprover, gateRefusal } from "./approval-gate.js";
import type { ApprovalContext, Approver } from "./approver.js";

/** What a tool asks a person to approve mid-call (see `ToolContext.askApproval`). */
export type ToolApprovalRequest = Parameters<NonNullable<ToolContext["askApproval"]>>[0];

/** Who is asked, and about which call. */
export interface ToolApprovalAsker {
  approver: Approver | undefined;
  signal: AbortSignal;
  logger: Logger;
  /** The call whose tool asks. */
  toolCallId: string;
  runId?: string | undefined;
  /** Binds an interaction to its question in the run's store (`ApprovalContext.bindInteraction`). */
  bindInteraction?: ApprovalContext["bindInteraction"] | undefined;
  /** Where the decision's audit record goes, as every other decision's; none is written without. */
  audit?: ApprovalAuditSinks | undefined;
  /**
   * With an `approverDirectory`: who may answer the tool's question (the
   * requirement of the rule that asked about the call, else
   * `defaultApprovers`), made when the question is asked.
   */
  approverCheck?: (() => Promise<ApproverCheck>) | undefined;
}

/**
 * Puts a tool's own question to the approver through the gate's judging
 * (`consultApprover`), under an approval id minted for it and bound to its
 * fingerprint: `true` only for an approval of exactly these arguments, not
 * edited; anything else, no approver included, is `false`. The approver may
 * bind its interaction in the run's store, as for the run's own calls, and
 * the decision is published as every decision is (one audit record, under
 * the question's own tool name); an approval whose record cannot be written
 * is `false`. With an approver directory the answer is judged by it as
 * every other answer is (`checkApprovers`), and the record names the
 * people. Nothing is spent: it lets no call run, only the tool answer
 * for the person.
 */
export async function askToolApproval(
  request: ToolApprovalRequest,
  asker: ToolApprovalAsker,
): Promise<boolean> {
  const check = await asker.approverCheck?.();
  const whoMayApprove = check ? await whoMayApproveFor(check) : undefined;
  const action = {
    approvalId: newApprovalId(asker.runId),
    toolName: request.toolName,
    toolCallId: asker.toolCallId,
    arguments: request.arguments,
    fingerprint: actionFingerprint(request.toolName, request.arguments),
    description: request.description,
    ...(whoMayApprove && !("failed" in whoMayApprove) ? { whoMayApprove } : {}),
  };
  const requestedAt = new Date();
  // Nobody is asked when the directory could not say whom.
  const [answered] =
    whoMayApprove && "failed" in whoMayApprove
      ? [gateRefusal(action, "approver_error", whoMayApprove.failed)]
      : await consultApprover({
          approver: asker.approver,
          actions: [action],
          signal: asker.signal,
          logger: asker.logger,
          ...(asker.runId !== undefined ? { runId: asker.runId } : {}),
          ...(asker.bindInteraction !== undefined
            ? { bindInteraction: asker.bindInteraction }
            : {}),
        });
  const asked = check && answered ? await checkApprovers(answered, check) : answered;
  const decision =
    asked !== undefined && asker.audit !== undefined
      ? await publishApprovalDecision(
          asker.audit,
          { toolName: request.toolName, toolCallId: asker.toolCallId, runId: asker.runId },
          asked,
          requestedAt,
        )
      : asked;
  const approved = decision?.outcome === "approved" && decision.edited === undefined;
  asker.logger.info(
    { toolName: request.toolName, toolCallId: asker.toolCallId, approved },
    `the approver ${approved ? "approved" : "did not approve"} ${request.toolName}, asked by the tool`,
  );
  return approved;
}

/** The approver behind each `askApproval` made by {@link toolApprovalAsk}. */
const approverOfAsk = new WeakMap<NonNullable<ToolContext["askApproval"]>, Approver>();

/**
 * A tool's `askApproval` for one call: {@link askToolApproval} of
 * `approver`, the rest of the asker made when a question is asked;
 * {@link approverAskedBy} names its approver.
 */
export function toolApprovalAsk(
  approver: Approver,
  askerOf: () => Omit<ToolApprovalAsker, "approver">,
): NonNullable<ToolContext["askApproval"]> {
  const ask = (request: ToolApprovalRequest) =>
    askToolApproval(request, { ...askerOf(), approver });
  approverOfAsk.set(ask, unwrappedApprover(approver));
  return ask;
}

/**
 * The approver an `askApproval` puts its questions to, as the application
 * gave it, when {@link toolApprovalAsk} made it; `undefined` for any other.
 */
export function approverAskedBy(ask: ToolContext["askApproval"]): Approver | undefined {
  return ask === undefined ? undefined : approverOfAsk.get(ask);
}
