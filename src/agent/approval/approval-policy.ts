import type { Logger } from "pino";
import { redactText } from "../../internal/redact.js";
import type { AnyTool, ToolTarget } from "../../tools/tool.js";
import type { AgentEventSink } from "../agent-events.js";
import type { ApprovedRecord, RefusedRecord, ShadowVerdict } from "../approval-gate.js";
import { describeThrown } from "../describe-thrown.js";
import { checkStandingOffer, type StandingApprovalOffer } from "./standing-approval.js";

/** What a rule of the approval policy decides for the calls it matches. */
export type ApprovalRuleDecision = "allow" | "deny" | "ask";

/**
 * One rule of an agent's {@link ApprovalPolicy}. A rule matches a call when
 * it names the call's tool (or names none) and its `when` holds for the
 * call's arguments and target.
 *
 * @example
 * { name: "sandbox deletions", tool: "delete_callbacks", decision: "allow",
 *   when: (args, target) => target?.environment === "sandbox" }
 */
export interface ApprovalRule {
  /** Shown in every decision the rule makes (records, audit log, the model's message). Unique. */
  name: string;
  /** The tool name(s) the rule is about. @default every tool */
  tool?: string | readonly string[] | undefined;
  /**
   * Whether the rule applies to this call. It reads a frozen copy of the
   * arguments that will run. One that throws counts as matching for `deny`
   * and `ask` and as not matching for `allow` (fail closed).
   * @default always
   */
  when?:
    | ((args: unknown, target: ToolTarget | undefined) => boolean | Promise<boolean>)
    | undefined;
  /** `allow` runs the call without asking; `deny` refuses it; `ask` asks the approver. */
  decision: ApprovalRuleDecision;
  /**
   * For `ask`: how many distinct approvers (approver links) must each approve
   * the same action; any denial refuses. `2` for production deletions, say.
   * @default 1
   */
  required?: 1 | 2 | undefined;
  /**
   * For `ask`: the question may offer "approve this and the next actions like
   * it in this run", within this scope. Never offered when two approvers
   * are required. A person's later denial of a call of the tool in the run,
   * or a `deny` rule, always wins over it.
   */
  standing?: StandingApprovalOffer | undefined;
}

/**
 * The one place that decides whether a tool call runs, is refused, or asks
 * a person. A tool's `needsApproval` (from `defineTool`, a tool set's
 * options or `mcpTools`) is the default this policy starts from; the rules
 * change it. When several rules match, `deny` wins over `allow`, and
 * `allow` over `ask`.
 *
 * @example
 * approvalPolicy: {
 *   rules: [
 *     { name: "no production cancels", tool: "cancel_orders", decision: "deny",
 *       when: (_args, target) => target?.environment === "production" },
 *     { name: "one sandbox callback", tool: "delete_callbacks", decision: "allow",
 *       when: (args) => (args as { callback_ids: string[] }).callback_ids.length === 1 },
 *   ],
 * }
 */
export interface ApprovalPolicy {
  rules?: readonly ApprovalRule[] | undefined;
  /**
   * Shadow mode: the rules are evaluated and what they would have decided is
   * recorded (on the call's approval record, as `policy`, and in the audit
   * trail), but the tools' defaults decide: gated calls still ask.
   * @default false
   */
  shadow?: boolean | undefined;
}

/** What the policy decided for one call, and which rule decided it. */
export interface PolicyVerdict {
  decision: ApprovalRuleDecision;
  /** The rule that decided; absent when the tool's default decided. */
  rule?: string;
  /** In shadow mode, what the rules would have decided (the tool's default decided). */
  shadow?: ShadowVerdict;
  /** For `ask` by rules: how many distinct approvers must approve (the most any matching rule requires). */
  required?: number;
  /** For `ask` by rules: the standing approval the question may offer, and the rule offering it. */
  standing?: { rule: string; offer: StandingApprovalOffer };
}

/** Checks an `approvalPolicy` option; adds one line per problem. */
export function checkApprovalPolicy(
  policy: unknown,
  tools: ReadonlyMap<string, AnyTool>,
  problems: string[],
): ApprovalPolicy {
  if (policy === undefined) return {};
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    problems.push(
      'approvalPolicy must be an object such as { rules: [{ name, tool, decision: "allow" | "deny" | "ask", when }] }.',
    );
    return {};
  }
  const { rules, shadow } = policy as ApprovalPolicy;
  if (shadow !== undefined && typeof shadow !== "boolean") {
    problems.push("approvalPolicy.shadow must be true or false.");
  }
  if (rules === undefined) return { shadow: shadow === true };
  if (!Array.isArray(rules)) {
    problems.push("approvalPolicy.rules must be an array of rules.");
    return {};
  }
  const names = new Set<string>();
  rules.forEach((rule: ApprovalRule, index) => {
    const at = `approvalPolicy.rules[${index}]`;
    if (typeof rule !== "object" || rule === null) {
      problems.push(`${at} must be an object { name, tool?, when?, decision }.`);
      return;
    }
    if (typeof rule.name !== "string" || rule.name.trim() === "") {
      problems.push(`${at}.name must be a non-empty string; it names the rule in every decision.`);
    } else if (names.has(rule.name)) {
      problems.push(
        `${at}.name "${rule.name}" is used by another rule; rule names must be unique.`,
      );
    } else names.add(rule.name);
    if (!["allow", "deny", "ask"].includes(rule.decision)) {
      problems.push(`${at}.decision must be "allow", "deny" or "ask".`);
    }
    if (rule.required !== undefined && rule.required !== 1 && rule.required !== 2) {
      problems.push(`${at}.required must be 1 or 2: how many distinct approvers must approve.`);
    }
    if ((rule.required !== undefined || rule.standing !== undefined) && rule.decision !== "ask") {
      problems.push(`${at}: required and standing apply to "ask" rules only.`);
    }
    if (rule.standing !== undefined) checkStandingOffer(rule.standing, `${at}.standing`, problems);
    if (rule.when !== undefined && typeof rule.when !== "function") {
      problems.push(`${at}.when must be a function (args, target) => boolean.`);
    }
    if (rule.tool !== undefined) {
      const named = typeof rule.tool === "string" ? [rule.tool] : rule.tool;
      if (!Array.isArray(named) || named.some((name) => typeof name !== "string")) {
        problems.push(`${at}.tool must be a tool name or an array of tool names.`);
      } else {
        for (const name of named) {
          if (!tools.has(name)) {
            problems.push(
              `${at}.tool names "${name}", which is not one of the agent's tools (${[...tools.keys()].join(", ")}).`,
            );
          }
        }
      }
    }
  });
  return { rules: Object.freeze([...rules]), shadow: shadow === true };
}

/**
 * Whether a call of `tool` with `args` runs (`allow`), is refused (`deny`)
 * or asks a person (`ask`). The tool's `needsApproval` gives the default
 * (one that throws asks); matching rules override it, deny over allow over
 * ask. In shadow mode the default decides and the rules' verdict is returned
 * beside it.
 */
export async function decideByPolicy(
  policy: ApprovalPolicy,
  tool: AnyTool,
  args: unknown,
  logger: () => Logger,
): Promise<PolicyVerdict> {
  const rules = policy.rules ?? [];
  // The common case (a fixed default, no rule about this tool) needs no await.
  if (typeof tool.needsApproval === "boolean" && !rules.some((rule) => names(rule, tool))) {
    return { decision: tool.needsApproval ? "ask" : "allow" };
  }
  const fallback: PolicyVerdict = {
    decision: (await toolDefault(tool, args, logger)) ? "ask" : "allow",
  };
  const byRules = await matchRules(rules, tool, args, logger);
  if (!byRules) return fallback;
  if (policy.shadow === true) {
    const { decision, rule } = byRules;
    return { ...fallback, shadow: { decision, ...(rule !== undefined ? { rule } : {}) } };
  }
  return byRules;
}

/** Whether a tool may have a call that asks or is refused by a rule, so its arguments must be frozen. */
export function mayBeGated(policy: ApprovalPolicy, tool: AnyTool): boolean {
  return tool.needsApproval !== false || (policy.rules ?? []).some((rule) => names(rule, tool));
}

/**
 * The names of the tools whose calls may change something (not `readOnly`)
 * and never ask anyone: their default is `needsApproval: false`, or a rule
 * without `when` allows them, and no rule can ask about or deny them. A
 * tool whose approval depends on its arguments is not listed: some of its
 * calls ask.
 */
export function ungatedToolNames(
  tools: Iterable<AnyTool>,
  policy: ApprovalPolicy = {},
): readonly string[] {
  const result: string[] = [];
  for (const tool of tools) {
    if (tool.readOnly === true) continue;
    const rules =
      policy.shadow === true ? [] : (policy.rules ?? []).filter((rule) => names(rule, tool));
    const unconditional = rules.filter((rule) => rule.when === undefined);
    const gatedByRule = rules.some((rule) => rule.decision !== "allow");
    const allowed =
      tool.needsApproval === false || unconditional.some((rule) => rule.decision === "allow");
    if (allowed && !gatedByRule) result.push(tool.name);
  }
  return Object.freeze(result);
}

/**
 * Logs at warn level, once, the tools that change something and run without
 * asking anyone because of the tool set's `runWithoutApproval` or a rule of
 * the policy, so that a policy change shows in the logs of every agent it
 * applies to.
 */
export function warnApprovalsTurnedOff(
  tools: Iterable<AnyTool>,
  policy: ApprovalPolicy,
  logger: Logger,
): void {
  const list = [...tools];
  const turnedOff = list
    .filter((tool) => tool.defaultApprovalTurnedOff === true)
    .map((tool) => tool.name);
  if (turnedOff.length > 0) {
    logger.warn(
      { tools: turnedOff },
      `approval is turned off for ${turnedOff.join(", ")} (runWithoutApproval): their calls run without asking anyone`,
    );
  }
  const allowedByRule = ungatedToolNames(list, policy).filter((name) => {
    const tool = list.find((candidate) => candidate.name === name);
    return tool !== undefined && tool.needsApproval !== false;
  });
  if (allowedByRule.length > 0) {
    logger.warn(
      { tools: allowedByRule },
      `approval is turned off for ${allowedByRule.join(", ")} by a rule of approvalPolicy: their calls run without asking anyone`,
    );
  }
}

function names(rule: ApprovalRule, tool: AnyTool): boolean {
  if (rule.tool === undefined) return true;
  return typeof rule.tool === "string" ? rule.tool === tool.name : rule.tool.includes(tool.name);
}

async function matchRules(
  rules: readonly ApprovalRule[],
  tool: AnyTool,
  args: unknown,
  logger: () => Logger,
): Promise<PolicyVerdict | undefined> {
  const matched: ApprovalRule[] = [];
  for (const rule of rules) {
    if (!names(rule, tool)) continue;
    if (rule.when === undefined) {
      matched.push(rule);
      continue;
    }
    let holds: boolean;
    try {
      holds = (await rule.when(args, tool.target)) === true;
    } catch (error) {
      holds = rule.decision !== "allow";
      logger().warn(
        { rule: rule.name, error: redactText(describeThrown(error)) },
        `approval rule "${rule.name}" threw; it ${holds ? "applies" : "does not apply"} (fail closed)`,
      );
    }
    if (holds) matched.push(rule);
  }
  for (const decision of ["deny", "allow"] as const) {
    const rule = matched.find((candidate) => candidate.decision === decision);
    if (rule) return { decision, rule: rule.name };
  }
  const asking = matched.filter((candidate) => candidate.decision === "ask");
  const first = asking[0];
  if (!first) return undefined;
  const required = Math.max(...asking.map((rule) => rule.required ?? 1));
  const offering = asking.find((rule) => rule.standing !== undefined);
  return {
    decision: "ask",
    rule: first.name,
    ...(required > 1 ? { required } : {}),
    // A question two people must approve offers no standing approval.
    ...(offering?.standing && required === 1
      ? { standing: { rule: offering.name, offer: offering.standing } }
      : {}),
  };
}

/** The tool's `needsApproval`, called as its method; one that throws asks (fail closed). */
async function toolDefault(tool: AnyTool, args: unknown, logger: () => Logger): Promise<boolean> {
  if (typeof tool.needsApproval === "boolean") return tool.needsApproval;
  try {
    return (await tool.needsApproval.call(tool, args)) !== false;
  } catch (error) {
    logger().warn(
      { error: redactText(describeThrown(error)) },
      "needsApproval threw; asking for approval",
    );
    return true;
  }
}

/** The refusal of a call a rule of the policy denies. */
export function policyRefusal(toolName: string, fingerprint: string, rule: string): RefusedRecord {
  return {
    outcome: "refused",
    fingerprint,
    code: "policy_denied",
    reason: `the approval policy's rule "${rule}" does not allow this call of ${toolName}; no one was asked`,
    rule,
  };
}

/**
 * Logs the audit line of a decision the policy made without asking anyone
 * (the line the approval gate writes for a person's decision, with the
 * rule), and emits `approval-result` for it. Without a record, logs what the
 * rules would have decided (shadow mode) about a call that ran by its
 * tool's default.
 */
export function logPolicyDecision(
  environment: { logger: Logger; emit: AgentEventSink; stepNumber: number },
  call: { toolName: string; toolCallId: string },
  record: ApprovedRecord | RefusedRecord | undefined,
  shadow?: ShadowVerdict,
): void {
  const { toolName, toolCallId } = call;
  if (!record) {
    environment.logger.info(
      { audit: "approval", tool: toolName, toolCallId, outcome: "not_asked", policy: shadow },
      `approval policy (shadow) would have decided ${shadow?.decision} for ${toolName}`,
    );
    return;
  }
  environment.logger.info(
    {
      audit: "approval",
      tool: toolName,
      toolCallId,
      fingerprint: record.fingerprint,
      outcome: record.outcome,
      code: record.outcome === "refused" ? record.code : undefined,
      rule: record.rule,
    },
    `approval ${record.outcome} for ${toolName} by rule "${record.rule}"`,
  );
  environment.emit({
    type: "approval-result",
    stepNumber: environment.stepNumber,
    toolCallId,
    toolName,
    approval: record,
  });
}
