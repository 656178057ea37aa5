import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { Approver } from "../agent/approver.js";
import {
  approverAskedBy,
  askToolApproval,
  type ToolApprovalRequest,
} from "../agent/ask-tool-approval.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import type { ToolContext } from "../tools/tool.js";
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
  /** `McpToolsOptions.approver`; without it, the approver of the agent whose call is in progress. */
  approver: Approver | undefined;
}

/** A tool call of an agent in progress on a client: whom its server's questions can reach. */
interface CallInProgress {
  askApproval: ToolContext["askApproval"];
  /** The approver `askApproval` asks, when known. */
  approver: Approver | undefined;
  logger: Logger;
}

/** The agents' tool calls in progress on each client, earliest first. */
const callsInProgress = new WeakMap<Client, Set<CallInProgress>>();

/**
 * Notes that an agent's call is in progress on the client until the
 * returned function is called: an elicitation request the client receives
 * meanwhile is put to that agent's approver (`context.askApproval`), and
 * a decline for want of one is logged to the call's logger.
 */
export function callInProgress(client: Client, context: ToolContext): () => void {
  let calls = callsInProgress.get(client);
  if (calls === undefined) {
    calls = new Set();
    callsInProgress.set(client, calls);
  }
  const call: CallInProgress = {
    askApproval: context.askApproval,
    approver: approverAskedBy(context.askApproval),
    logger: context.logger,
  };
  calls.add(call);
  return () => {
    calls.delete(call);
  };
}

/**
 * Has the client answer the server's elicitation requests through a person:
 * `onElicitation` when given, else an approver (see below): `approver` when
 * given, else the approver of the agent whose call to the server is in
 * progress; else every request is declined, and the decline logged with
 * its reason. A request says nothing of the call it is about, so when
 * several calls are in progress on the client (agents sharing it) it is put
 * to their approver only when they all have the same one, in the earliest
 * call's run; with different approvers it is declined, lest one person
 * answer a question raised by another's call. An approver can only
 * say yes or no, so it is asked only for a form whose every required field
 * has a default (approve accepts with the defaults, anything else
 * declines); any other request is declined without asking.
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
      answer(request.params, extra.signal, answerers, callsInProgress.get(client)),
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
  calls: ReadonlySet<CallInProgress> | undefined,
): Promise<ElicitResult> {
  if (answerers.onElicitation) {
    return answerers.onElicitation(request, { server: answerers.serverName, signal });
  }
  const inProgress = [...(calls ?? [])];
  const [call] = inProgress;
  const logger = call?.logger ?? componentLogger(undefined, "mcp-elicitation");
  const declined = (reason: string): ElicitResult => {
    // Each agent whose call was in progress hears why, in its own log.
    const loggers = new Set(inProgress.map((each) => each.logger));
    if (loggers.size === 0) loggers.add(logger);
    for (const each of loggers) {
      each.warn(
        { server: answerers.serverName },
        `declined the elicitation request of MCP server "${answerers.serverName}": ${reason}`,
      );
    }
    return { action: "decline" };
  };
  const { approver } = answerers;
  if (approver === undefined && !oneApprover(inProgress)) {
    return declined(
      `${inProgress.length} agents' calls to the server were in progress with different approvers, and the request does not say which call it is about, so it was put to none of them (give each agent its own client, or mcpTools onElicitation or approver)`,
    );
  }
  const ask: ToolContext["askApproval"] =
    approver === undefined
      ? call?.askApproval
      : (question) =>
          askToolApproval(question, {
            approver,
            signal,
            logger,
            toolCallId: `elicitation-${answerers.serverName}`,
          });
  if (ask === undefined) {
    return declined(
      call === undefined
        ? "no agent's call to the server was in progress, so there was nobody to ask (give mcpTools onElicitation or approver)"
        : "the agent has no approver, so nobody could be asked (give the Agent an approver, or mcpTools onElicitation)",
    );
  }
  if (!("requestedSchema" in request)) {
    return declined(
      "it asks the person to open a link, which an approver cannot do (give mcpTools onElicitation)",
    );
  }
  const defaults = defaultContent(request);
  if (defaults === undefined) {
    return declined(
      "its form has a required field without a default, which an approver, who can only approve or deny, cannot fill in (give mcpTools onElicitation)",
    );
  }
  // Through the approval gate: anything but an approval of exactly this answer declines.
  return (await ask(elicitationQuestion(answerers.serverName, request, defaults)))
    ? { action: "accept", content: defaults }
    : { action: "decline" };
}

/** Whether the calls in progress all put questions to one approver (at most one call: trivially). */
function oneApprover(calls: readonly CallInProgress[]): boolean {
  if (calls.length <= 1) return true;
  const approver = calls[0]?.approver;
  return approver !== undefined && calls.every((call) => call.approver === approver);
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
function elicitationQuestion(
  serverName: string,
  request: FormRequest,
  content: FormContent,
): ToolApprovalRequest {
  return {
    toolName: "mcp_elicitation",
    arguments: { server: serverName, message: request.message, answer: content },
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
