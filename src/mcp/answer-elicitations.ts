import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { newApprovalId } from "../agent/approval/approval-id.js";
import { consultApprover } from "../agent/approval-gate.js";
import type { ApprovalAction, Approver } from "../agent/approver.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { actionFingerprint } from "../internal/canonical-json.js";
import { componentLogger } from "../internal/logger.js";
import { mcpSdk } from "./mcp-sdk.js";

/**
 * Answers an MCP server's elicitation request (`elicitation/create`) by
 * asking a person, e.g. in the application's own form. Receives the
 * server's request as sent (untrusted: show its text escaped) and returns
 * what the person chose: `accept` with the fields they filled in, `decline`
 * or `cancel`. The model never sees the request nor answers it.
 */
export type McpElicitationHandler = (
  request: ElicitRequest["params"],
  context: { server: string; signal: AbortSignal },
) => ElicitResult | Promise<ElicitResult>;

/** How {@link answerElicitations} answers: a person's handler, or an approver, or nobody. */
export interface ElicitationAnswerers {
  /** The server, as `McpToolsOptions.serverName` names it. */
  serverName: string;
  onElicitation: McpElicitationHandler | undefined;
  approver: Approver | undefined;
}

/**
 * Has the client answer the server's elicitation requests through a person:
 * `onElicitation` when given, else the approver (see below), else every
 * request is declined. The approver can only say yes or no, so it is asked
 * only for a form whose every required field has a default (approve accepts
 * with the defaults, anything else declines); any other request is
 * declined without asking.
 *
 * A client that did not declare the `elicitation` capability is never asked
 * by a conforming server: nothing is registered, and an `onElicitation`
 * given for it is a configuration error saying how to declare it (the
 * approver, the agent's anyway, is then simply not asked).
 * A client that answers elicitation requests itself (its own handler) is left
 * as it is; an `onElicitation` given besides is a configuration error.
 */
export function answerElicitations(client: Client, answerers: ElicitationAnswerers): void {
  const { ElicitRequestSchema } = mcpSdk.types("mcpTools");
  const asked = answerers.onElicitation !== undefined;
  try {
    client.assertCanSetRequestHandler("elicitation/create");
  } catch {
    if (asked) {
      throw new ConfigurationError(
        `mcpTools (server "${answerers.serverName}"): the client already answers elicitation requests with its own handler; pass that handler as onElicitation instead of setting it on the client, or leave onElicitation out.`,
      );
    }
    return;
  }
  try {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      answer(request.params, extra.signal, answerers),
    );
  } catch (error) {
    if (asked) {
      throw new ConfigurationError(
        `mcpTools (server "${answerers.serverName}"): onElicitation needs a client that declares the elicitation capability: new Client(info, { capabilities: { elicitation: { form: {} } } }).`,
        { cause: error },
      );
    }
  }
}

async function answer(
  request: ElicitRequest["params"],
  signal: AbortSignal,
  answerers: ElicitationAnswerers,
): Promise<ElicitResult> {
  if (answerers.onElicitation) {
    return answerers.onElicitation(request, { server: answerers.serverName, signal });
  }
  if (answerers.approver === undefined || !("requestedSchema" in request)) {
    return { action: "decline" };
  }
  const defaults = defaultContent(request);
  if (defaults === undefined) return { action: "decline" };
  const action = elicitationAction(answerers.serverName, request, defaults);
  // Through the approval gate: anything but an approval of exactly this answer declines.
  const [decision] = await consultApprover({
    approver: answerers.approver,
    actions: [action],
    signal,
    logger: componentLogger(undefined, "mcp-elicitation"),
  });
  return decision?.outcome === "approved" && decision.edited === undefined
    ? { action: "accept", content: defaults }
    : { action: "decline" };
}

type FormRequest = Exclude<ElicitRequest["params"], { mode: "url" }>;
type FormContent = NonNullable<ElicitResult["content"]>;

/** The form filled in with its defaults, or `undefined` when a required field has none. */
function defaultContent(request: FormRequest): FormContent | undefined {
  const properties = request.requestedSchema?.properties ?? {};
  const content: FormContent = {};
  for (const [name, property] of Object.entries(properties)) {
    if ("default" in property && property.default !== undefined) {
      content[name] = property.default as FormContent[string];
    }
  }
  const required = request.requestedSchema?.required ?? [];
  return required.every((name) => Object.hasOwn(content, name)) ? content : undefined;
}

/** The question put to the approver: the server's message and what accepting would send. */
function elicitationAction(
  serverName: string,
  request: FormRequest,
  content: FormContent,
): ApprovalAction {
  const toolName = "mcp_elicitation";
  const args = { server: serverName, message: request.message, answer: content };
  return {
    approvalId: newApprovalId(undefined),
    toolName,
    toolCallId: `elicitation-${serverName}`,
    arguments: args,
    fingerprint: actionFingerprint(toolName, args),
    description: {
      summary:
        "An MCP server asks you the question below. Approve to accept it with the answer shown; deny to decline.",
      details: [
        { label: "MCP server", value: serverName },
        { label: "its question", text: request.message },
        { label: "the answer sent if you approve (JSON)", text: JSON.stringify(content, null, 2) },
      ],
      irreversible: false,
    },
  };
}
