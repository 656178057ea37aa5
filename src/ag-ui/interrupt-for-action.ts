import type { Interrupt } from "@ag-ui/core";
import type { ApprovalAction } from "../agent/approver.js";
import { describeActionParts } from "../approvers/messaging/approval-message-text.js";
import { redactValue } from "../internal/redact.js";

/**
 * The interrupt that asks a person about one action: its id the approval's,
 * the question in words (untrusted parts escaped), and the whole action in
 * `metadata.switchyard`, with the answers it allows; `responseSchema` says
 * what a resume payload must be; `expiresAt`, when it can no longer be answered.
 */
export function interruptForAction(
  action: ApprovalAction,
  interruptId: string,
  expiresAt?: string,
): Interrupt {
  const parts = describeActionParts(action);
  const message = [
    `Approval needed: ${parts.summary}`,
    ...parts.where,
    ...parts.details,
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
        arguments: redactValue(action.arguments),
        description: redactValue(action.description),
        ...(action.target ? { target: action.target } : {}),
        fingerprint: action.fingerprint,
        answers: {
          edit: action.editable === true,
          perItem: true,
          standing: action.standing ?? false,
        },
      },
    },
  };
}
