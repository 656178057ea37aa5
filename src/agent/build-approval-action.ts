import { redactText, redactValue } from "../internal/redact.js";
import type { ActionDescription, ActionDetail, AnyTool, ToolContext } from "../tools/tool.js";
import type { ApprovalAction } from "./approver.js";
import { describeThrown } from "./describe-thrown.js";

/**
 * The action put to the approver for one tool call: the fingerprint of the
 * tool name, the arguments that will run and the tool's target, where it
 * acts, and a description, from the tool's `describeAction` or, when it has
 * none or it fails, a generic one showing the whole arguments. The describer and the approver each get their own
 * copy of the arguments, so neither can change what runs. Descriptions are
 * redacted: the approver may relay them to a chat service.
 */
export async function buildApprovalAction(
  tool: AnyTool,
  args: unknown,
  fingerprint: string,
  context: ToolContext,
): Promise<ApprovalAction> {
  return {
    toolName: tool.name,
    toolCallId: context.toolCallId,
    arguments: structuredClone(args),
    fingerprint,
    description: await describe(tool, structuredClone(args), context),
    ...(tool.target ? { target: { ...tool.target } } : {}),
  };
}

async function describe(
  tool: AnyTool,
  args: unknown,
  context: ToolContext,
): Promise<ActionDescription> {
  if (tool.describeAction) {
    try {
      const description = await tool.describeAction(args, context);
      if (typeof description?.summary === "string" && description.summary.trim() !== "") {
        return redactDescription(description);
      }
      context.logger.warn(
        { tool: tool.name },
        "describeAction returned no summary; using a generic description",
      );
    } catch (error) {
      context.logger.warn(
        { tool: tool.name, error: redactText(describeThrown(error)) },
        "describeAction failed; using a generic description",
      );
    }
  }
  return genericDescription(tool.name, args);
}

/** `Run the tool "name"` and the whole arguments as indented JSON, secrets redacted. */
export function genericDescription(toolName: string, args: unknown): ActionDescription {
  return {
    summary: `Run the tool "${toolName}" with the arguments below.`,
    details: [
      {
        label: "arguments (JSON, as the agent gave them)",
        text: JSON.stringify(redactValue(args ?? {}), null, 2) ?? "{}",
      },
    ],
    irreversible: true,
  };
}

function redactDescription(description: ActionDescription): ActionDescription {
  return {
    summary: redactText(description.summary),
    ...(Array.isArray(description.details)
      ? { details: description.details.map(redactDetail) }
      : {}),
    irreversible: description.irreversible !== false,
  };
}

function redactDetail(detail: ActionDetail | string): ActionDetail | string {
  if (typeof detail !== "object" || detail === null) return redactText(String(detail));
  return {
    label: redactText(String(detail.label ?? "")),
    ...(typeof detail.value === "string" ? { value: redactText(detail.value) } : {}),
    ...(typeof detail.text === "string" ? { text: redactText(detail.text) } : {}),
    ...(detail.writtenByAgent === true ? { writtenByAgent: true } : {}),
  };
}
