import type { ModelMessage, ToolApprovalStatus, ToolExecutionOptions, ToolSet } from "ai";
import type { Logger } from "pino";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { ApprovalPolicy } from "../agent/approval/approval-rule.js";
import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import type { FinalApproval } from "../agent/approval/decide-approval.js";
import {
  FrameworkGate,
  type FrameworkStartedBy,
  type GatedToolDetails,
  gateOptionProblems,
} from "../agent/approval/framework-gate.js";
import type { Approver } from "../agent/approver.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";
import type { ActionDescription, ToolContext, ToolTarget } from "../tools/tool.js";
import { chatApprovalResponses, honourChatApprovals } from "./chat-approval-responses.js";

/** `ai`, loaded when a gated tool first needs its schema, not by `import("switchyard-agents/ai-sdk")`. */
const loadAi = () => loadOptionalPeer<typeof import("ai")>("ai", "approvalGate");

/** A quarter of an hour: how long a question put to the person in the chat stays answerable. */
const defaultChatApprovalTtlMs = 15 * 60_000;

/**
 * What `approvalGate` gives an AI SDK app: its tools with Switchyard's gate
 * in their `execute`, the `toolApproval` to hand `ToolLoopAgent`,
 * `generateText` or `streamText`, and, for a person approving in the chat,
 * the check of the approval responses a client sends back.
 */
interface AiSdkApprovalGate<TOOLS extends ToolSet> {
  /** The same tools; each `execute` runs only as the gate decides. */
  tools: TOOLS;
  /** The AI SDK's approval hook, deciding by Switchyard's policy (reasons on every automatic decision). */
  toolApproval: (options: {
    toolCall: { toolName: string; toolCallId: string; input: unknown };
    messages: ModelMessage[];
  }) => Promise<ToolApprovalStatus>;
  /**
   * For a person approving in the chat (no `approver`): the client-sent
   * model messages with every approval response the server did not issue,
   * issued for other input, already used or expired turned into a denial,
   * and each answer recorded in the audit trail. Call it on the messages of
   * every request before handing them to the agent.
   */
  checkApprovalResponses(messages: ModelMessage[]): Promise<ModelMessage[]>;
}

/** How a call of one tool reads to the person, and where it acts. */
interface AiSdkToolDetails {
  /** Where the calls act (service, account, environment): named in the question, part of the fingerprint. */
  target?: ToolTarget;
  /** Words for the person; a generic description of the arguments when absent. */
  describeAction?: (
    input: never,
    context: ToolContext,
  ) => ActionDescription | Promise<ActionDescription>;
}

/** What {@link approvalGate} is built from. */
interface AiSdkApprovalGateOptions<TOOLS extends ToolSet> {
  /** The app's own `tool()`s, by name, as `ToolLoopAgent`, `generateText` or `streamText` take them. */
  tools: TOOLS;
  /**
   * Asks the person on a channel of its own (a `MessagingApprover`, the AG-UI
   * or MCP elicitation approvers, one of yours); the tool's `execute` waits
   * for the answer. Absent: the person answers in the chat, through AI SDK
   * UI's approval parts.
   */
  approver?: Approver;
  /**
   * Which calls run, are refused or ask: Switchyard's rules, naming the
   * tools by their keys in `tools`. A tool no rule decides asks when its
   * own `needsApproval` says so, else runs.
   */
  approvalPolicy?: ApprovalPolicy;
  /** By tool name: its `target` and `describeAction`. */
  toolDetails?: { [NAME in keyof TOOLS]?: AiSdkToolDetails };
  /** Where every decision's audit record is appended before its call runs (a `JsonlAuditLog`, a `PostgresAuditLog`). */
  auditLog?: { append(record: ApprovalAuditRecord): Promise<void> };
  /** Called with every decision's audit record. */
  onApprovalDecided?: (record: ApprovalAuditRecord) => void | Promise<void>;
  /**
   * How long a question put to the person in the chat can be answered;
   * an answer after it is the outcome `expired`, and nothing runs.
   * @default 900000 (15 minutes)
   */
  chatApprovalTtlMs?: number;
  /** Values that must never reach the person, the audit trail or a log. */
  secrets?: readonly string[];
  logger?: Logger;
  /**
   * Who may approve (`approverDirectory({ people })`, `loadApproverDirectory`,
   * yours): every answer is judged by it as the agent's own gate judges
   * them, so the policy's rules may name `roles`, `required` people,
   * `allowSelfApproval` and `escalateTo`, and each record names the people.
   * Needs `approver` (an answer in the chat names nobody).
   */
  approverDirectory?: ApproverDirectory;
  /**
   * Who started the run (with `approverDirectory`): a person's id in it, their
   * identity on a channel, or a function giving it for each call from
   * the tool's `context` (the AI SDK's `toolsContext`). Their
   * own answer is refused (`self_approval`) unless the rule allows it.
   */
  startedBy?: FrameworkStartedBy;
}

/**
 * Switchyard's approval gate on an AI SDK 7 app's own `tool()`s: the
 * approval policy, with a reason on every automatic decision; an approver
 * of any channel, or the person in the chat; the approval bound to the
 * exact input it was given (`execute` runs only with the approved input,
 * once); expiry as its own outcome; one audit record per decision.
 *
 * @example
 * const gate = approvalGate({
 *   tools: { deleteCallbacks },
 *   approver: new MessagingApprover({ client, subscriptionLinkId }),
 *   approvalPolicy: { rules: [{ name: "deletions ask", tool: "deleteCallbacks", decision: "ask" }] },
 *   auditLog: new JsonlAuditLog({ path: "approvals.jsonl" }),
 * });
 * const agent = new ToolLoopAgent({ model, tools: gate.tools, toolApproval: gate.toolApproval });
 */
export function approvalGate<TOOLS extends ToolSet>(
  options: AiSdkApprovalGateOptions<TOOLS>,
): AiSdkApprovalGate<TOOLS> {
  const problems = checkGateOptions(options);
  if (problems.length > 0) throw new ConfigurationError(problems);
  const gate = new FrameworkGate(
    options,
    new Map(Object.keys(options.tools).map((name) => [name, { type: "object" }])),
    (options.toolDetails ?? {}) as Record<string, GatedToolDetails | undefined>,
  );
  const ttlMs = options.chatApprovalTtlMs ?? defaultChatApprovalTtlMs;
  const tools = options.tools as ToolSet;
  const described = new Set<string>();
  const prepare = async (toolName: string) => {
    if (described.has(toolName)) return;
    const schema = await loadAi().asSchema(tools[toolName]?.inputSchema as never).jsonSchema;
    gate.setParameters(toolName, schema as Record<string, unknown>);
    described.add(toolName);
  };
  const needsApprovalOf = (toolName: string, toolCallId: string, messages: ModelMessage[]) => {
    const own = tools[toolName]?.needsApproval;
    if (typeof own !== "function") return own === true;
    return async (args: unknown) =>
      (await (own as (input: unknown, options: unknown) => unknown)(args, {
        toolCallId,
        messages,
        context: undefined,
      })) === true;
  };
  const validate = (toolName: string) => async (args: unknown) => {
    const schema = loadAi().asSchema(tools[toolName]?.inputSchema as never);
    if (!schema.validate) return { success: true as const, data: args };
    const result = await schema.validate(args);
    return result.success
      ? { success: true as const, data: result.value }
      : { success: false as const, issues: [result.error.message] };
  };

  const wrapped: ToolSet = {};
  for (const [toolName, original] of Object.entries(tools)) {
    const execute = original.execute;
    if (typeof execute !== "function") {
      wrapped[toolName] = original;
      continue;
    }
    const { needsApproval: _decidedByTheGate, ...rest } = original;
    wrapped[toolName] = {
      ...rest,
      execute: async (input: unknown, executionOptions: ToolExecutionOptions<unknown>) => {
        await prepare(toolName);
        const { toolCallId, messages } = executionOptions;
        const call = {
          toolName,
          toolCallId,
          args: input,
          needsApproval: needsApprovalOf(toolName, toolCallId, messages),
          signal: executionOptions.abortSignal,
          context: executionOptions.context,
        };
        const run = (args: unknown) => execute(args as never, executionOptions as never);
        const judged = await gate.judge(call);
        if (judged.kind === "refused") {
          const approval = await gate.publish(call, judged.approval, new Date());
          return notRunOutput(toolName, approval);
        }
        if (judged.kind === "run") {
          if (!judged.approval) return run(judged.args);
          const approval = await gate.publish(call, judged.approval, new Date());
          return approval.outcome === "approved"
            ? run(judged.args)
            : notRunOutput(toolName, approval);
        }
        if (gate.hasApprover) {
          const decided = await gate.ask(call, judged, validate(toolName));
          const approval = await gate.publish(call, decided.approval, decided.requestedAt);
          if (approval.outcome !== "approved") return notRunOutput(toolName, approval);
          const result = await run(decided.args);
          if (!decided.edit) return result;
          return JSON.parse(
            FrameworkGate.edited(
              toolName,
              decided.edit,
              decided.args,
              JSON.stringify(result),
              approval.note,
            ),
          ) as unknown;
        }
        const response = chatApprovalResponses(messages).get(toolCallId);
        if (!response && !gate.issued.find(toolName, toolCallId)) {
          // Nothing asked the person: the AI SDK was not given the gate's toolApproval.
          const approval = await gate.publish(
            call,
            {
              outcome: "refused",
              fingerprint: judged.frozen.fingerprint,
              code: "no_approver",
              reason: `nobody was asked to approve this call of ${toolName}: without an approver the person answers in the chat, which needs the gate's toolApproval given to the AI SDK (toolApproval: gate.toolApproval)`,
            },
            new Date(),
          );
          return notRunOutput(toolName, approval);
        }
        // The person answered in the chat: the answer counts only for the approval this server issued.
        const checked = gate.issued.take(toolName, toolCallId, judged.frozen.fingerprint);
        const approval = await gate.publishCheck(call, checked, response?.reason);
        return approval.outcome === "approved"
          ? run(judged.frozen.args)
          : notRunOutput(toolName, approval);
      },
    } as (typeof wrapped)[string];
  }

  // A call of one of the app's tools with an execute, as the gate judges it.
  const judgeCall = async (
    toolName: string,
    toolCallId: string,
    input: unknown,
    messages: ModelMessage[],
  ) => {
    if (typeof tools[toolName]?.execute !== "function") return undefined;
    await prepare(toolName);
    const call = {
      toolName,
      toolCallId,
      args: input,
      needsApproval: needsApprovalOf(toolName, toolCallId, messages),
    };
    return { call, judged: await gate.judge(call) };
  };

  const toolApproval = async ({
    toolCall,
    messages,
  }: {
    toolCall: { toolName: string; toolCallId: string; input: unknown };
    messages: ModelMessage[];
  }): Promise<ToolApprovalStatus> => {
    const { toolName, toolCallId, input } = toolCall;
    const found = await judgeCall(toolName, toolCallId, input, messages);
    if (found === undefined) return undefined;
    const { call, judged } = found;
    if (judged.kind === "refused") {
      const approval = await gate.publish(call, judged.approval, new Date());
      return { type: "denied", reason: reasonOf(approval) };
    }
    if (judged.kind === "run") {
      return judged.approval
        ? {
            type: "approved",
            reason: `the approval policy's rule "${judged.approval.rule}" allows it`,
          }
        : undefined;
    }
    // Asked on the approver's own channel, inside `execute`, where parallel calls are asked at once.
    if (gate.hasApprover) return undefined;
    const response = chatApprovalResponses(messages).get(toolCallId);
    if (response) {
      // The AI SDK checks an approval the client sent back: only one this server issued passes.
      const checked = gate.issued.check(toolName, toolCallId, judged.frozen.fingerprint);
      if ("usable" in checked) return { type: "user-approval" };
      const approval = await gate.publishCheck(call, checked);
      if (checked.issued) gate.issued.close(checked.issued);
      return { type: "denied", reason: reasonOf(approval) };
    }
    const action = await gate.action(call, judged.frozen);
    const issued = gate.issued.issue({
      approvalId: action.approvalId,
      toolName,
      toolCallId,
      fingerprint: judged.frozen.fingerprint,
      args: judged.frozen.args,
      expiresAt: Date.now() + ttlMs,
      requestedAt: new Date(),
    });
    if (issued.state !== "issued") {
      return { type: "denied", reason: "this call was already asked about and answered" };
    }
    return { type: "user-approval", reason: action.description.summary };
  };

  return {
    tools: wrapped as TOOLS,
    toolApproval,
    checkApprovalResponses: (messages) =>
      honourChatApprovals(messages, async (toolName, toolCallId, input, response) => {
        const found = await judgeCall(toolName, toolCallId, input, messages);
        if (found === undefined || found.judged.kind !== "ask") return undefined;
        const { call, judged } = found;
        const checked = gate.issued.check(toolName, toolCallId, judged.frozen.fingerprint);
        if ("usable" in checked && response.approved) return undefined;
        if ("usable" in checked) {
          gate.issued.close(checked.usable);
          const reason = response.reason?.trim()
            ? response.reason
            : "the person denied it in the chat";
          await gate.publish(
            call,
            {
              outcome: "refused",
              fingerprint: checked.usable.fingerprint,
              approvalId: checked.usable.approvalId,
              code: "denied",
              reason,
            },
            checked.usable.requestedAt,
          );
          return undefined;
        }
        if (!response.approved) return undefined;
        const approval = await gate.publishCheck(call, checked);
        if (checked.issued) gate.issued.close(checked.issued);
        return reasonOf(approval);
      }),
  };
}

/** The model's view of a call that did not run, as the tool's output. */
function notRunOutput(toolName: string, approval: FinalApproval): unknown {
  if (approval.outcome === "approved") throw new Error("an approved call runs");
  return JSON.parse(FrameworkGate.notRun(toolName, approval)) as unknown;
}

function reasonOf(approval: FinalApproval): string {
  return approval.outcome === "approved" ? "approved" : approval.reason;
}

function checkGateOptions(options: AiSdkApprovalGateOptions<ToolSet>): string[] {
  const problems: string[] = [];
  if (typeof options !== "object" || options === null) {
    return ["approvalGate needs options such as { tools, approver, approvalPolicy, auditLog }."];
  }
  if (typeof options.tools !== "object" || options.tools === null) {
    problems.push(
      "approvalGate: tools must be the app's tool set, e.g. { deleteCallbacks: tool({ ... }) }.",
    );
  }
  problems.push(
    ...gateOptionProblems(options, Object.keys(options.tools ?? {}), {
      option: "chatApprovalTtlMs",
      value: options.chatApprovalTtlMs,
    }),
  );
  return problems;
}
