import { redactText, redactValue, type SecretRegistry } from "../internal/redact.js";
import type { ActionDescription, ActionDetail, AnyTool, ToolContext } from "../tools/tool.js";
import type { ApprovalAction } from "./approver.js";
import { describeThrown } from "./describe-thrown.js";

/**
 * The action put to the approver for one tool call: its approval id (the
 * agent's, minted when the call reached the gate), the fingerprint of the
 * tool name, the arguments that will run and the tool's target, where it
 * acts, and a description, from the tool's `describeAction` or, when it has
 * none or it fails, a generic one showing the whole arguments, and the
 * JSON Schema of the tool's arguments (for a person who changes them). The describer and the approver each get their own
 * copy of the arguments, so neither can change what runs. Descriptions are
 * redacted: the approver may relay them to a chat service.
 */
export async function buildApprovalAction(
  tool: AnyTool,
  args: unknown,
  fingerprint: string,
  approvalId: string,
  context: ToolContext,
): Promise<ApprovalAction> {
  return {
    approvalId,
    toolName: tool.name,
    toolCallId: context.toolCallId,
    arguments: structuredClone(args),
    fingerprint,
    description: await describe(tool, structuredClone(args), context),
    ...(isSchemaObject(tool.parameters) ? { parameters: structuredClone(tool.parameters) } : {}),
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

/**
 * The action as an approver is shown it: its arguments, its description
 * and its standing scope's value with every secret of `secrets` (the
 * agent's registry: its `secrets` option, its model's, tools' and
 * approver's) and every secret the patterns recognise replaced by
 * `[redacted]`. An approver relays what it is shown to a person, through
 * a chat or messaging service: no secret may reach either. The
 * fingerprints, the tool, the call and the target are kept, so an approval
 * still binds to the real arguments; an edit copied from the redacted ones
 * is refused, since it holds the marker.
 */
export function redactApprovalAction(
  action: ApprovalAction,
  secrets: SecretRegistry,
): ApprovalAction {
  const known = secrets.values();
  const { standing } = action;
  return {
    ...action,
    arguments: redactValue(action.arguments, known),
    description: redactDescription(action.description, known),
    ...(standing
      ? {
          standing: {
            ...standing,
            ...(standing.sameValue
              ? {
                  sameValue: {
                    label: redactText(standing.sameValue.label, known),
                    value: redactText(standing.sameValue.value, known),
                  },
                }
              : {}),
          },
        }
      : {}),
  };
}

function redactDescription(
  description: ActionDescription,
  known: readonly string[] = [],
): ActionDescription {
  return {
    summary: redactText(String(description?.summary ?? ""), known),
    ...(Array.isArray(description?.details)
      ? { details: description.details.map((detail) => redactDetail(detail, known)) }
      : {}),
    irreversible: description?.irreversible !== false,
  };
}

function redactDetail(
  detail: ActionDetail | string,
  known: readonly string[],
): ActionDetail | string {
  if (typeof detail !== "object" || detail === null) return redactText(String(detail), known);
  return {
    label: redactText(String(detail.label ?? ""), known),
    ...(typeof detail.value === "string" ? { value: redactText(detail.value, known) } : {}),
    ...(typeof detail.text === "string" ? { text: redactText(detail.text, known) } : {}),
    ...(detail.writtenByAgent === true ? { writtenByAgent: true } : {}),
  };
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
