import type { FunctionTool, RunContext, RunState, RunToolApprovalItem } from "@openai/agents";
import type { Logger } from "pino";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { ApprovalPolicy } from "../agent/approval/approval-rule.js";
import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import type { FinalApproval } from "../agent/approval/decide-approval.js";
import {
  FrameworkGate,
  type FrameworkStartedBy,
  type GatedCall,
  type GatedToolDetails,
  gateOptionProblems,
} from "../agent/approval/framework-gate.js";
import type { Approver } from "../agent/approver.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { compileJsonSchema } from "../tools/compile-json-schema.js";
import type { ActionDescription, ToolContext, ToolTarget } from "../tools/tool.js";

/** A quarter of an hour: how long an approval asked for through client-sent state stays usable. */
const defaultApprovalTtlMs = 15 * 60_000;

// biome-ignore lint/suspicious/noExplicitAny: a tool list of any context, parameters and result.
type AnyFunctionTool = FunctionTool<any, any, any>;

/** How a call of one tool reads to the person, and where it acts. */
interface AgentsToolDetails {
  /** Where the calls act (service, account, environment): named in the question, part of the fingerprint. */
  target?: ToolTarget;
  /** Words for the person; a generic description of the arguments when absent. */
  describeAction?: (
    input: never,
    context: ToolContext,
  ) => ActionDescription | Promise<ActionDescription>;
}

/** What {@link approvalGate} is built from. */
interface AgentsApprovalGateOptions<TOOLS extends readonly AnyFunctionTool[]> {
  /** The app's own `tool()`s, as the `Agent` takes them. */
  tools: TOOLS;
  /**
   * Asks the person on a channel of its own (a `MessagingApprover`, the AG-UI
   * or MCP elicitation approvers, one of yours): `resolveInterruptions`
   * puts every interruption of a run to it. Absent: the app approves on the
   * `RunState` itself (its own UI), and the gate honours only approvals of
   * calls it asked about.
   */
  approver?: Approver;
  /**
   * Which calls run, are refused or ask: Switchyard's rules, naming the
   * tools by name. A tool no rule decides asks when its own
   * `needsApproval` says so, else runs.
   */
  approvalPolicy?: ApprovalPolicy;
  /** By tool name: its `target` and `describeAction`. */
  toolDetails?: Record<string, AgentsToolDetails>;
  /** Where every decision's audit record is appended before its call runs (a `JsonlAuditLog`, a `PostgresAuditLog`). */
  auditLog?: { append(record: ApprovalAuditRecord): Promise<void> };
  /** Called with every decision's audit record. */
  onApprovalDecided?: (record: ApprovalAuditRecord) => void | Promise<void>;
  /**
   * How long an approval the gate asked for stays usable: one used later
   * is the outcome `expired`, and nothing runs.
   * @default 900000 (15 minutes)
   */
  approvalTtlMs?: number;
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
   * the run's context (`run(agent, input, { context })`, as `RunContext.context`). Their
   * own answer is refused (`self_approval`) unless the rule allows it.
   */
  startedBy?: FrameworkStartedBy;
}

/** What {@link approvalGate} gives an Agents SDK app. */
interface AgentsApprovalGate<TOOLS extends readonly AnyFunctionTool[]> {
  /** The same tools: `needsApproval` decided by the policy, `invoke` run only as the gate decides. */
  tools: TOOLS;
  /**
   * Puts every interruption of the run (`result.state`) to the approver, all
   * at once, and approves or rejects each on the state by the answer
   * (a denial, a refusal or an expiry rejects it, with words for the
   * model); then `run(agent, state)` goes on. Needs `approver`.
   */
  resolveInterruptions(
    // biome-ignore lint/suspicious/noExplicitAny: a run state of any context and agent.
    state: RunState<any, any>,
  ): Promise<Array<{ toolName: string; callId: string; outcome: FinalApproval["outcome"] }>>;
}

/**
 * Switchyard's approval gate on an OpenAI Agents SDK app's own `tool()`s:
 * `needsApproval` decided by the approval policy; interruptions resolved
 * through any Switchyard approver; an approval bound to the exact input
 * (the tool runs only with the approved input, once); expiry as its own
 * outcome; one audit record per decision. A `RunState` restored from a
 * client approves nothing the server did not ask about: a forged or
 * replayed approval in it runs nothing.
 *
 * @example
 * const gate = approvalGate({ tools: [deleteCallbacks], approver, auditLog });
 * const agent = new Agent({ name: "cleanup", tools: gate.tools });
 * let result = await run(agent, task);
 * while (result.interruptions.length > 0) {
 *   await gate.resolveInterruptions(result.state);
 *   result = await run(agent, result.state);
 * }
 */
export function approvalGate<TOOLS extends readonly AnyFunctionTool[]>(
  options: AgentsApprovalGateOptions<TOOLS>,
): AgentsApprovalGate<TOOLS> {
  const problems = checkGateOptions(options);
  if (problems.length > 0) throw new ConfigurationError(problems);
  const byName = new Map(options.tools.map((tool) => [tool.name, tool] as const));
  const gate = new FrameworkGate(
    options,
    new Map(options.tools.map((tool) => [tool.name, tool.parameters as Record<string, unknown>])),
    (options.toolDetails ?? {}) as Record<string, GatedToolDetails | undefined>,
  );
  const ttlMs = options.approvalTtlMs ?? defaultApprovalTtlMs;
  const callOf = (
    tool: AnyFunctionTool,
    runContext: RunContext<unknown>,
    callId: string,
    args: unknown,
  ): GatedCall => ({
    toolName: tool.name,
    toolCallId: callId,
    args,
    needsApproval: async (input) =>
      (await tool.needsApproval(runContext, input as never, callId)) === true,
    context: runContext?.context,
  });

  const tools = options.tools.map(
    (original): AnyFunctionTool => ({
      ...original,
      needsApproval: async (runContext, input, callId) => {
        const call = callOf(original, runContext, callId ?? "", input);
        const judged = await gate.judge(call);
        if (judged.kind !== "ask") return false;
        const decided = callId
          ? runContext.isToolApproved({ toolName: original.name, callId })
          : true;
        // Without an approver the app approves on the state: the question is issued here, once.
        if (!gate.hasApprover && callId && decided === undefined) {
          const action = await gate.action(call, judged.frozen);
          gate.issued.issue({
            approvalId: action.approvalId,
            toolName: original.name,
            toolCallId: callId,
            fingerprint: judged.frozen.fingerprint,
            args: judged.frozen.args,
            expiresAt: Date.now() + ttlMs,
            requestedAt: new Date(),
          });
        }
        return true;
      },
      invoke: async (runContext, input, callDetails) => {
        const callId = callDetails?.toolCall?.callId ?? "";
        let args: unknown;
        try {
          args = JSON.parse(input);
        } catch {
          // Not JSON: the tool reports it to the model itself, and runs nothing.
          return original.invoke(runContext, input, callDetails);
        }
        const call = callOf(original, runContext, callId, args);
        const run = (runArgs: unknown) =>
          original.invoke(runContext, JSON.stringify(runArgs), callDetails);
        const judged = await gate.judge(call);
        if (judged.kind === "refused") {
          return notRun(original.name, await gate.publish(call, judged.approval, new Date()));
        }
        if (judged.kind === "run") {
          if (!judged.approval) return original.invoke(runContext, input, callDetails);
          const approval = await gate.publish(call, judged.approval, new Date());
          return approval.outcome === "approved"
            ? run(judged.args)
            : notRun(original.name, approval);
        }
        const checked = gate.issued.take(original.name, callId, judged.frozen.fingerprint);
        if ("usable" in checked && gate.hasApprover) {
          // Approved through the approver, and recorded then: what runs is what the person approved.
          const granted = checked.usable;
          const result = await run(granted.args);
          const edit = edits.get(granted.approvalId);
          if (!edit) return result;
          return FrameworkGate.edited(
            original.name,
            edit.edit,
            granted.args,
            typeof result === "string" ? result : JSON.stringify(result),
            edit.note,
          );
        }
        const approval = await gate.publishCheck(call, checked);
        return approval.outcome === "approved"
          ? run(judged.frozen.args)
          : notRun(original.name, approval);
      },
    }),
  ) as unknown as TOOLS;

  /** The person's changes, by approval id, for the words the model reads after the call. */
  const edits = new Map<string, { edit: { asked: unknown; summary: string }; note?: string }>();

  const resolveOne = async (
    // biome-ignore lint/suspicious/noExplicitAny: a run state of any context and agent.
    state: RunState<any, any>,
    item: RunToolApprovalItem,
  ): Promise<{ toolName: string; callId: string; outcome: FinalApproval["outcome"] }> => {
    const raw = item.rawItem as { callId?: string; name?: string; arguments?: string };
    const toolName = item.name ?? raw.name ?? "";
    const callId = raw.callId ?? "";
    const tool = byName.get(toolName);
    if (!tool) return { toolName, callId, outcome: "refused" };
    let args: unknown;
    try {
      args = JSON.parse(item.arguments ?? "{}");
    } catch {
      args = item.arguments;
    }
    const call = callOf(tool, state._context, callId, args);
    const judged = await gate.judge(call);
    if (judged.kind !== "ask") {
      // needsApproval decided otherwise now: `invoke` judges the call again when it runs.
      state.approve(item);
      return { toolName, callId, outcome: judged.kind === "run" ? "approved" : "refused" };
    }
    const decided = await gate.ask(call, judged, async (edited) => {
      const issues = compileJsonSchema(tool.parameters as Record<string, unknown>, {
        subject: `the parameters of ${toolName}`,
      })(edited);
      return issues.length === 0 ? { success: true, data: edited } : { success: false, issues };
    });
    const approval = await gate.publish(call, decided.approval, decided.requestedAt);
    if (approval.outcome !== "approved") {
      state.reject(item, { message: FrameworkGate.notRun(toolName, approval) });
      return { toolName, callId, outcome: approval.outcome };
    }
    const granted = gate.issued.issue({
      approvalId: approval.approvalId ?? "",
      toolName,
      toolCallId: callId,
      fingerprint: judged.frozen.fingerprint,
      args: decided.args,
      expiresAt: Date.now() + ttlMs,
      requestedAt: decided.requestedAt,
    });
    if (decided.edit) {
      edits.set(granted.approvalId, {
        edit: decided.edit,
        ...(approval.note !== undefined ? { note: approval.note } : {}),
      });
    }
    state.approve(item);
    return { toolName, callId, outcome: "approved" };
  };

  return {
    tools,
    resolveInterruptions: async (state) => {
      if (!gate.hasApprover) {
        throw new ConfigurationError(
          "approvalGate: resolveInterruptions needs an approver; without one, approve or reject each interruption on the RunState yourself (the gate honours only the calls it asked about).",
        );
      }
      const ours = state
        .getInterruptions()
        .filter((item: RunToolApprovalItem) => byName.has(item.name ?? ""));
      return Promise.all(ours.map((item: RunToolApprovalItem) => resolveOne(state, item)));
    },
  };
}

function notRun(toolName: string, approval: FinalApproval): string {
  if (approval.outcome === "approved") throw new Error("an approved call runs");
  return FrameworkGate.notRun(toolName, approval);
}

function checkGateOptions(
  options: AgentsApprovalGateOptions<readonly AnyFunctionTool[]>,
): string[] {
  if (typeof options !== "object" || options === null) {
    return ["approvalGate needs options such as { tools, approver, approvalPolicy, auditLog }."];
  }
  const problems: string[] = [];
  const tools = options.tools;
  if (!Array.isArray(tools)) {
    problems.push(
      "approvalGate: tools must be the agent's tools, e.g. [tool({ name, parameters, execute })].",
    );
  } else {
    for (const [index, tool] of tools.entries()) {
      if (tool?.type !== "function" || typeof tool.invoke !== "function") {
        problems.push(
          `approvalGate: tools[${index}] is not a function tool made with tool() of @openai/agents; only function tools can be gated.`,
        );
      }
    }
  }
  const names = Array.isArray(tools) ? tools.map((tool) => String(tool?.name)) : [];
  problems.push(
    ...gateOptionProblems(options, names, {
      option: "approvalTtlMs",
      value: options.approvalTtlMs,
    }),
  );
  return problems;
}
