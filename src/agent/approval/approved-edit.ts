import { redactText } from "../../internal/redact.js";
import type { AnyTool, ToolContext } from "../../tools/tool.js";
import type { ApprovedRecord, RefusedRecord } from "../approval-gate.js";
import type { ApprovalAction } from "../approver.js";
import { buildApprovalAction } from "../build-approval-action.js";
import { describeThrown } from "../describe-thrown.js";
import { type FrozenArguments, freezeArguments } from "../freeze-arguments.js";
import { sameFingerprint } from "./fingerprint-check.js";

/** An edit the tool accepts: the frozen arguments that run, and the action described again. */
export interface AcceptedEdit {
  frozen: FrozenArguments;
  action: ApprovalAction;
}

/**
 * Checks the arguments a person approved in place of the model's: the
 * tool's own schema must accept them, and as the tool reads them (defaults
 * filled in, values coerced) they must still have the approved fingerprint;
 * otherwise the edit is a refusal (`invalid_edit`) that says why, and
 * nothing runs. An accepted edit is described again, as its own action.
 */
export async function checkApprovedEdit(
  tool: AnyTool,
  approval: ApprovedRecord & { edited: { arguments: unknown } },
  context: ToolContext,
): Promise<AcceptedEdit | RefusedRecord> {
  const refuse = (reason: string): RefusedRecord => ({
    outcome: "refused",
    fingerprint: approval.fingerprint,
    code: "invalid_edit",
    reason,
    ...(approval.interactionId !== undefined ? { interactionId: approval.interactionId } : {}),
    ...(approval.approverLink !== undefined ? { approverLink: approval.approverLink } : {}),
  });
  const check = tool.checkArguments(approval.edited.arguments);
  if (!check.success) {
    return refuse(
      `the person's edit does not fit ${tool.name}'s parameters (${check.issues.join("; ")}), so nothing was run`,
    );
  }
  let frozen: FrozenArguments;
  try {
    frozen = freezeArguments(tool.name, check.data, tool.target);
  } catch (error) {
    return refuse(
      `the person's edit cannot be bound to an approval (${redactText(describeThrown(error))}), so nothing was run`,
    );
  }
  if (!sameFingerprint(frozen.fingerprint, approval.fingerprint)) {
    return refuse(
      `${tool.name} reads the person's edit differently from how it was approved (its schema fills in or changes values), so nothing was run; the edit must give every argument as the tool takes it`,
    );
  }
  return {
    frozen,
    action: await buildApprovalAction(tool, frozen.args, frozen.fingerprint, context),
  };
}
