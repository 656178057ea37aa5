import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ElicitRequestFormParams, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { viewOfAction } from "../agent/approval/action-view.js";
import { actionViewLines } from "../agent/approval/action-view-lines.js";
import type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  Approver,
  DecisionSource,
  RefusedDecision,
} from "../agent/approver.js";
import type { RefusalCode } from "../agent/refusal-code.js";
import { buildOnFirstUse } from "../internal/build-on-first-use.js";
import { textDigest } from "../internal/canonical-json.js";
import { loadZod } from "../internal/load-zod.js";
import type { SecretRegistry } from "../internal/redact.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";
import { mcpSdk } from "./mcp-sdk.js";
import { whoMayApproveLines } from "./who-may-approve-lines.js";

/** Options of {@link elicitationApprover}. */
export interface ElicitationApproverOptions {
  /** Removes secrets from the question before it goes out. */
  secrets: SecretRegistry;
  /** How long the host's user has to answer, in milliseconds; then the call does not run. */
  timeoutMs: number;
  /**
   * The id of the host's `tools/call` the question is about: the question
   * travels with it (over Streamable HTTP, on that call's response stream),
   * so a host that never opens the optional GET stream is still asked.
   */
  relatedRequestId?: RequestId | undefined;
  /**
   * Who the host's user is, for this call (`createMcpServer`'s `hostUser`):
   * their answer carries `answeredBy: { channel: "mcp", id: hostUser }`.
   * When an approver directory judges the answer (the action says
   * `whoMayApprove`) and the user is not known, nobody is asked: the call
   * is refused `approver_not_allowed`.
   */
  hostUser?: string | undefined;
}

/** The longest note the person may write with their answer. */
const maxNoteLength = 2_000;

/** What the form asks: approve or deny, and a note. Only `approve` lets the call run. */
const requestedSchema = {
  type: "object",
  properties: {
    decision: {
      type: "string",
      title: "Your decision",
      description: "approve runs this call once, exactly as shown; deny refuses it.",
      enum: ["approve", "deny"],
    },
    note: {
      type: "string",
      title: "Note (optional)",
      description: "Told to the model with your answer, e.g. why you denied it.",
      maxLength: maxNoteLength,
    },
  },
  required: ["decision"],
} satisfies ElicitRequestFormParams["requestedSchema"];

/**
 * An approver that asks the MCP host's user, through the client the server
 * is connected to (`elicitation/create`, form mode): the question shows the
 * whole call (what it does, where, the tool, every detail and the arguments
 * as JSON, untrusted text escaped and secrets removed) and offers approve or
 * deny with an optional note. Only an `accept` whose decision is `approve`
 * approves, bound to the action's fingerprint under an id minted for this
 * question alone, which the gate spends once; `decline`, `cancel`, a deny,
 * an error or no answer in time refuses. A client that did not declare the
 * `elicitation` capability (form mode) cannot be asked: the call is refused
 * saying so.
 */
export function elicitationApprover(server: Server, options: ElicitationApproverOptions): Approver {
  // The answers asked for and not yet read, by approval id: the host answers as it is asked.
  const answers = new Map<string, ApprovalDecision>();
  return {
    async ask(actions, context) {
      // One form at a time: a host shows one question, and each action is approved on its own.
      for (const action of actions) answers.set(action.approvalId, await elicit(action, context));
      return "mcp-elicitation";
    },
    async read(_ticket, actions) {
      return actions.map((action) => {
        const answer = answers.get(action.approvalId);
        answers.delete(action.approvalId);
        return (
          answer ??
          refused(
            "approver_error",
            "This MCP server did not ask its host's user about this call (it was asked in another process), so the call does not run.",
          )
        );
      });
    },
  };

  async function elicit(action: ApprovalAction, context: ApprovalContext) {
    const unavailable = unavailableReason(server);
    if (unavailable !== undefined) return refused("approver_unavailable", unavailable);
    const { hostUser } = options;
    if (action.whoMayApprove !== undefined && hostUser === undefined) {
      return refused(
        "approver_not_allowed",
        "This MCP server does not know who its host's user is (createMcpServer's hostUser named nobody for this request), so their answer could not count as anyone's in the approver directory; the call does not run. Give hostUser (switchyard mcp --host-user NAME).",
      );
    }
    // The host's user started the call; a rule that excludes its starter leaves nobody to ask here.
    if (action.whoMayApprove?.excluded !== undefined) {
      return refused(
        "self_approval",
        `The MCP host's user (${escapeUntrustedText(action.whoMayApprove.excluded)} in the approver directory) started this call, and the rule asking does not let the person who started it approve it, so they were not asked; the call does not run. Someone else must approve it, through another approver (the messaging service).`,
      );
    }
    // The question is the agent's approval: it is named by the approval's id.
    const interactionId = action.approvalId;
    const message = elicitationMessage(action);
    const source = {
      approverLink: "mcp-client",
      questionDigest: textDigest(message),
      ...(hostUser !== undefined ? { answeredBy: { channel: "mcp", id: hostUser } as const } : {}),
    };
    let answer: unknown;
    try {
      answer = await server.elicitInput(
        { mode: "form", message, requestedSchema },
        {
          signal: context.signal,
          timeout: options.timeoutMs,
          ...(options.relatedRequestId !== undefined
            ? { relatedRequestId: options.relatedRequestId }
            : {}),
        },
      );
    } catch (error) {
      return failedQuestion(error, context, options.timeoutMs, interactionId, source);
    }
    return judgeAnswer(answer, action, interactionId, source, options.secrets);
  }
}

/** Why the connected client cannot be asked, or `undefined` when it can. */
function unavailableReason(server: Server): string | undefined {
  const capabilities = server.getClientCapabilities();
  const otherwise =
    "use an MCP host that supports elicitation (form mode), or have someone else approve (switchyard mcp --approve browser, or the messaging service through SWITCHYARD_MESSAGING_URL).";
  if (capabilities === undefined) {
    return `This MCP connection never said what its client can do (a stateless HTTP server sees each request on its own), so the host's user cannot be asked to approve this call: serve over stdio or over HTTP with sessions (serveMcpOverHttp, switchyard mcp --http) to approve through the host, or ${otherwise}`;
  }
  if (capabilities.elicitation?.form === undefined) {
    return `The MCP client did not declare the elicitation capability (form mode), so its user cannot be asked to approve this call: ${otherwise}`;
  }
  return undefined;
}

/**
 * The question the host's user reads, laid out from the action's one view
 * (`actionViewLines`): the summary and labels are the tool's words; names,
 * values and arguments are escaped by the view and secrets the agent knows
 * are placeholders, so nothing in them can pose as a line of the question.
 */
export function elicitationMessage(action: ApprovalAction): string {
  const view = viewOfAction(action);
  const lines = actionViewLines(view);
  return [
    `Approve this tool call? ${lines.summary}`,
    ...lines.where,
    `Tool: ${view.tool}`,
    ...lines.details,
    ...lines.arguments,
    view.irreversible ? "This cannot be undone." : "This can be undone.",
    ...whoMayApproveLines(action.whoMayApprove),
    "Approve runs this call once, exactly as shown; anything else refuses it.",
  ].join("\n");
}

/** An MCP client's answer to the approval form, as it is read. */
const answerSchema = buildOnFirstUse(() => {
  const { z } = loadZod();
  return z.object({
    action: z.enum(["accept", "decline", "cancel"]),
    content: z
      .object({
        decision: z.enum(["approve", "deny"]).optional(),
        note: z.string().optional(),
      })
      .optional(),
  });
});

/** The answer, parsed: only `accept` with `decision: "approve"` approves; the note is cut to its limit. */
function judgeAnswer(
  answer: unknown,
  action: ApprovalAction,
  interactionId: string,
  source: DecisionSource,
  secrets: SecretRegistry,
): ApprovalDecision {
  const parsed = answerSchema().safeParse(answer);
  if (!parsed.success) {
    return refused(
      "unreadable_answer",
      "The MCP client's answer to the approval question could not be read; the call does not run.",
      interactionId,
    );
  }
  const note = parsed.data.content?.note?.trim().slice(0, maxNoteLength) || undefined;
  const withNote = note === undefined ? {} : { note: secrets.redactText(note) };
  if (parsed.data.action === "accept" && parsed.data.content?.decision === "approve") {
    return {
      outcome: "approved",
      fingerprint: action.fingerprint,
      interactionId,
      approvedBy: source.answeredBy?.id ?? "the MCP host's user",
      ...withNote,
      ...source,
    };
  }
  const [code, reason]: [RefusalCode, string] =
    parsed.data.action === "cancel"
      ? ["canceled", "The MCP host's user dismissed the approval question; the call does not run."]
      : parsed.data.action === "decline"
        ? ["denied", "The MCP host's user declined the approval question; the call does not run."]
        : ["denied", "The MCP host's user denied this call."];
  return { ...refused(code, reason, interactionId), ...withNote, ...source };
}

/** A question that got no answer: aborted, timed out, or the client failed. */
function failedQuestion(
  error: unknown,
  context: ApprovalContext,
  timeoutMs: number,
  interactionId: string,
  source: DecisionSource,
): ApprovalDecision {
  if (context.signal.aborted) {
    return {
      ...refused("aborted", "The call was aborted while its approval was asked.", interactionId),
      ...source,
    };
  }
  const { ErrorCode, McpError } = mcpSdk.types("elicitationApprover");
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return {
      outcome: "expired",
      reason: `The MCP host's user did not answer the approval question within ${Math.round(timeoutMs / 1_000)} seconds; the call does not run.`,
      interactionId,
      ...source,
    };
  }
  return {
    ...refused(
      "approver_error",
      "The MCP client could not ask its user or sent an error instead of an answer; the call does not run.",
      interactionId,
    ),
    ...source,
  };
}

function refused(code: RefusalCode, reason: string, interactionId?: string): RefusedDecision {
  return {
    outcome: "refused",
    code,
    reason,
    ...(interactionId !== undefined ? { interactionId } : {}),
  };
}
