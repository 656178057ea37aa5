import { redactText, type SecretRegistry } from "../internal/redact.js";
import type {
  ActionDescription,
  ActionDetail,
  AnyTool,
  ToolContext,
  ToolTarget,
} from "../tools/tool.js";
import {
  buildActionView,
  registeredSecretPlaceholder,
  viewOfAction,
} from "./approval/action-view.js";
import type { StandingScope } from "./approval/standing-approval.js";
import type { ApprovalAction } from "./approver.js";
import { describeThrown } from "./describe-thrown.js";

/**
 * The action put to the approver for one tool call: its approval id (the
 * agent's, minted when the call reached the gate), the fingerprint of the
 * tool name, the arguments that will run and the tool's target, where it
 * acts, and a description, from the tool's `describeAction` or, when it has
 * none or it fails, a generic one, and the JSON Schema of the tool's
 * arguments (for a person who changes them). The describer and the
 * approver each get their own copy of the arguments, so neither can change
 * what runs. Nothing is hidden here: the gate builds the action's view,
 * with the agent's secrets as placeholders, before anyone is asked.
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
        return plainDescription(description);
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
  return genericDescription(tool.name);
}

/**
 * `Run the tool "name"`: the summary of a tool that does not describe its
 * actions. Every argument is shown anyway, in the action's view.
 */
export function genericDescription(toolName: string): ActionDescription {
  return {
    summary: `Run the tool "${toolName}" with the arguments below.`,
    irreversible: true,
  };
}

/**
 * The action as an approver is shown it: its one view (the gate's, or one
 * built now for an action that has none) and its arguments and description
 * with the same placeholders: a value equal to a secret of `secrets` (the
 * agent's registry: its `secrets` option, its model's, tools' and
 * approver's) and the value of a secret-named property. Nothing else is
 * changed, so a person judges the values that run. The fingerprint, the
 * tool, the call and the target are kept, so an approval still binds to
 * the real arguments; an edit copied from the shown ones is refused where
 * it holds a placeholder.
 *
 * The gate never asks about an action with a secret inside one of its
 * values (it refuses it, `secret_in_value`); for an action built elsewhere
 * that has one, every value holding a secret is hidden whole.
 */
export function showApprovalAction(
  action: ApprovalAction,
  secrets: SecretRegistry,
): ApprovalAction {
  const known = secrets.values();
  const built = buildActionView(action, known);
  if ("view" in built) {
    return {
      ...action,
      arguments: built.shown.arguments,
      description: built.shown.description,
      view: action.view ?? built.view,
      ...(action.standing ? { standing: shownStanding(action.standing, known) } : {}),
    };
  }
  const hidden: ApprovalAction = {
    ...action,
    arguments: hideWhole(action.arguments, known),
    description: hideWhole(action.description, known) as ActionDescription,
    ...(action.target ? { target: hideWhole(action.target, known) as ToolTarget } : {}),
    ...(action.standing ? { standing: shownStanding(action.standing, known) } : {}),
  };
  const rebuilt = buildActionView(hidden, []);
  const view = "view" in rebuilt ? rebuilt.view : viewOfAction(action);
  return { ...hidden, ...(action.target ? { target: action.target } : {}), view };
}

/**
 * Arguments as a person is shown them outside an action, such as their own
 * edit reported back to the client, by the rules {@link showApprovalAction}
 * shows an action's arguments: a value equal to a secret of `secrets` and
 * the value of a secret-named field as the view's placeholder, nothing else
 * changed. Arguments holding such a secret anywhere else (inside a value,
 * in a name, in an escaped form) are hidden whole: the placeholder alone.
 */
export function showArguments(args: unknown, secrets: SecretRegistry): unknown {
  const built = buildActionView(
    { toolName: "", arguments: args, description: { summary: "" } },
    secrets.values(),
  );
  return "view" in built ? built.shown.arguments : registeredSecretPlaceholder;
}

function shownStanding(standing: StandingScope, known: readonly string[]): StandingScope {
  if (!standing.sameValue) return standing;
  return {
    ...standing,
    sameValue: {
      label: hideWhole(standing.sameValue.label, known) as string,
      value: hideWhole(standing.sameValue.value, known) as string,
    },
  };
}

// Every string that holds a secret, replaced whole by the placeholder.
function hideWhole(value: unknown, known: readonly string[]): unknown {
  if (typeof value === "string") {
    return known.some((secret) => value.includes(secret)) ? registeredSecretPlaceholder : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => hideWhole(item, known));
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    Object.defineProperty(result, key, {
      value: hideWhole(inner, known),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

// The describer's answer as plain data of the expected shape (it may be any object at run time).
function plainDescription(description: ActionDescription): ActionDescription {
  return {
    summary: String(description?.summary ?? ""),
    ...(Array.isArray(description?.details)
      ? { details: description.details.map(plainDetail) }
      : {}),
    irreversible: description?.irreversible !== false,
  };
}

function plainDetail(detail: ActionDetail | string): ActionDetail | string {
  if (typeof detail !== "object" || detail === null) return String(detail);
  return {
    label: String(detail.label ?? ""),
    ...(typeof detail.value === "string" ? { value: detail.value } : {}),
    ...(typeof detail.text === "string" ? { text: detail.text } : {}),
    ...(detail.writtenByAgent === true ? { writtenByAgent: true } : {}),
  };
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
