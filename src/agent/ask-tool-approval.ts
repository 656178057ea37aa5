import type { Logger } from "pino";
import { actionFingerprint } from "../internal/canonical-json.js";
import type { ToolContext } from "../tools/tool.js";
import { newApprovalId } from "./approval/approval-id.js";
import { consultApprover } from "./approval-gate.js";
import type { Approver } from "./approver.js";

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
}

/**
 * Puts a tool's own question to the approver through the gate's judging
 * (`consultApprover`), under an approval id minted for it and bound to its
 * fingerprint: `true` only for an approval of exactly these arguments, not
 * edited; anything else, no approver included, is `false`. Nothing is
 * spent or recorded: it lets no call run, only the tool answer for the person.
 */
export async function askToolApproval(
  request: ToolApprovalRequest,
  asker: ToolApprovalAsker,
): Promise<boolean> {
  const action = {
    approvalId: newApprovalId(asker.runId),
    toolName: request.toolName,
    toolCallId: asker.toolCallId,
    arguments: request.arguments,
    fingerprint: actionFingerprint(request.toolName, request.arguments),
    description: request.description,
  };
  const [decision] = await consultApprover({
    approver: asker.approver,
    actions: [action],
    signal: asker.signal,
    logger: asker.logger,
    ...(asker.runId !== undefined ? { runId: asker.runId } : {}),
  });
  const approved = decision?.outcome === "approved" && decision.edited === undefined;
  asker.logger.info(
    { toolName: request.toolName, toolCallId: asker.toolCallId, approved },
    `the approver ${approved ? "approved" : "did not approve"} ${request.toolName}, asked by the tool`,
  );
  return approved;
}
