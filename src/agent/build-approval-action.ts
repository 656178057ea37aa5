import { redactText, redactValue } from "../internal/redact.js";
import type { ActionDescription, AnyTool, ToolContext } from "../tools/tool.js";
import type { ApprovalAction } from "./approver.js";
import { describeThrown } from "./describe-thrown.js";

const maxDetailLength = 200;

/**
 * The action put to the approver for one tool call: the fingerprint of the
 * tool name and the arguments that will run, and a description, from the
 * tool's `describeAction` or, when it has none or it fails, a generic one
 * listing the arguments. The describer and the approver each get their own
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

/** `Run "tool"` and one `name: value` line per top-level argument, secrets redacted. */
export function genericDescription(toolName: string, args: unknown): ActionDescription {
  const safe = redactValue(args);
  const entries =
    typeof safe === "object" && safe !== null && !Array.isArray(safe)
      ? Object.entries(safe)
      : [["arguments", safe] as const];
  return {
    summary: `Run the tool "${toolName}" with the arguments below.`,
    details: entries.map(
      ([key, value]) => `${key}: ${truncate(JSON.stringify(value) ?? "undefined")}`,
    ),
    irreversible: true,
  };
}

function redactDescription(description: ActionDescription): ActionDescription {
  return {
    summary: redactText(description.summary),
    ...(Array.isArray(description.details)
      ? { details: description.details.map((line) => redactText(String(line))) }
      : {}),
    irreversible: description.irreversible !== false,
  };
}

function truncate(text: string): string {
  return text.length > maxDetailLength ? `${text.slice(0, maxDetailLength)}…` : text;
}
