import { redactedMarker, redactText } from "../../internal/redact.js";
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
    ...(approval.approvalId !== undefined ? { approvalId: approval.approvalId } : {}),
    ...(approval.interactionId !== undefined ? { interactionId: approval.interactionId } : {}),
    ...(approval.approverLink !== undefined ? { approverLink: approval.approverLink } : {}),
  });
  const marked = pathHoldingRedactedMarker(approval.edited.arguments);
  if (marked !== undefined) {
    return refuse(
      `the person's edit holds ${redactedMarker} at ${marked}, where the question hid a secret; an approval cannot carry a secret, so nothing was run (change the call without touching that value, or deny it)`,
    );
  }
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
    action: await buildApprovalAction(
      tool,
      frozen.args,
      frozen.fingerprint,
      approval.approvalId ?? "",
      context,
    ),
  };
}

/**
 * Where `value` holds the redaction marker (in a key or a string), as a
 * path such as `headers.authorization`; `undefined` when nowhere. The
 * question shows secrets as the marker: an edit copied from it would run
 * with the marker in place of the secret.
 */
function pathHoldingRedactedMarker(value: unknown, path = "the arguments"): string | undefined {
  if (typeof value === "string") return value.includes(redactedMarker) ? path : undefined;
  if (value === null || typeof value !== "object") return undefined;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  for (const [key, item] of entries) {
    const itemPath = path === "the arguments" ? key : `${path}.${key}`;
    if (key.includes(redactedMarker)) return itemPath;
    const found = pathHoldingRedactedMarker(item, itemPath);
    if (found !== undefined) return found;
  }
  return undefined;
}
