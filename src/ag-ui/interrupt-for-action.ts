import type { Interrupt } from "@ag-ui/core";
import { viewOfAction } from "../agent/approval/action-view.js";
import { actionViewLines } from "../agent/approval/action-view-lines.js";
import type { ApprovalAction } from "../agent/approver.js";
import { whoMayApproveMetadata } from "./who-may-approve-metadata.js";

/**
 * The interrupt that asks a person about one action: its id the approval's,
 * the question in words, and the whole action in `metadata.switchyard`,
 * with the answers it allows; `responseSchema` says what a resume payload
 * must be; `expiresAt`, when it can no longer be answered. All of it comes
 * from the action's one view: the words laid out as every channel lays
 * them out, the arguments and the target as data with the same
 * placeholders, and the view itself (`view`); `task`, the user message
 * the run answers (`ApprovalContext.task`), when it has one.
 */
export function interruptForAction(
  action: ApprovalAction,
  interruptId: string,
  expiresAt?: string,
  task?: string,
): Interrupt {
  const view = viewOfAction(action);
  // Whole: an interrupt has no length limit, so no line is cut.
  const parts = actionViewLines(view);
  const message = [
    `Approval needed: ${parts.summary}`,
    ...parts.where,
    ...parts.details,
    ...parts.arguments,
    ...parts.foot,
  ].join("\n");
  return {
    id: interruptId,
    reason: "tool_call",
    message,
    toolCallId: action.toolCallId,
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    responseSchema: {
      type: "object",
      properties: {
        approved: { type: "boolean" },
        fingerprint: { const: action.fingerprint },
        // Offered only when the rule asking allows edits; the gate refuses any other edit.
        ...(action.editable === true
          ? {
              editedArgs: {
                type: "object",
                description: "Full replacement of the tool's arguments.",
              },
            }
          : {}),
        note: { type: "string", maxLength: 2000 },
        ...(action.standing ? { standing: { type: "boolean" } } : {}),
      },
      required: ["approved", "fingerprint"],
      additionalProperties: false,
    },
    metadata: {
      switchyard: {
        reason: "human_approval",
        tool: action.toolName,
        arguments: view.values.arguments,
        description: action.description,
        ...(view.values.target ? { target: view.values.target } : {}),
        view,
        fingerprint: action.fingerprint,
        ...(task !== undefined ? { task } : {}),
        answers: {
          edit: action.editable === true,
          perItem: true,
          standing: action.standing ?? false,
        },
        ...(action.whoMayApprove
          ? { whoMayApprove: whoMayApproveMetadata(action.whoMayApprove) }
          : {}),
      },
    },
  };
}
