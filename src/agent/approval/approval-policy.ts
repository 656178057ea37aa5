import type { Logger } from "pino";
import type { AnyTool } from "../../tools/tool.js";
import type { RefusedRecord, ShadowVerdict } from "../approval-gate.js";
import type {
  ApprovalPolicy,
  ApprovalRule,
  ApprovalRuleDecision,
  DefaultApprovers,
} from "./approval-rule.js";
import { type ApproverRequirement, combineRequirements } from "./approver-requirement.js";
import {
  type CompiledApprovalPolicy,
  type CompiledRule,
  compileApprovalPolicy,
} from "./compile-approval-policy.js";
import { checkStandingOffer, type StandingApprovalOffer } from "./standing-approval.js";

export type {
  ApprovalPolicy,
  ApprovalRule,
  ApprovalRuleDecision,
  DefaultApprovers,
} from "./approval-rule.js";

/** What the policy decided for one call, and which rule decided it. */
export interface PolicyVerdict {
  decision: ApprovalRuleDecision;
  /** The rule that decided; absent when the tool's default decided. */
  rule?: string;
  /** In shadow mode, what the policy's own rules would have decided (the tool's options or default decided). */
  shadow?: ShadowVerdict;
  /** For `ask` by rules: how many distinct approvers must approve (the most any matching rule requires). */
  required?: number;
  /** For `ask` by rules: the standing approval the question may offer, and the rule offering it. */
  standing?: { rule: string; offer: StandingApprovalOffer };
  /** For `ask`: every rule asking lets the person change the call before approving it. */
  edits?: true;
  /** For `ask`: who may approve, as every rule asking says together (used with an `approverDirectory`). */
  approvers?: ApproverRequirement;
}

/**
 * Checks an `approvalPolicy` option, adding one line per problem, and
 * compiles it with the rules of the tools' options and the tools' defaults
 * (`compileApprovalPolicy`) into the one policy that decides every call.
 */
export function checkApprovalPolicy(
  policy: unknown,
  tools: ReadonlyMap<string, AnyTool>,
  problems: string[],
  hasDirectory = false,
): CompiledApprovalPolicy {
  const before = problems.length;
  const checked = checkPolicyShape(policy, tools, problems, hasDirectory);
  // A policy with problems is never used: the caller throws them.
  return compileApprovalPolicy(problems.length > before ? {} : checked, tools.values());
}

function checkPolicyShape(
  policy: unknown,
  tools: ReadonlyMap<string, AnyTool>,
  problems: string[],
  hasDirectory: boolean,
): ApprovalPolicy {
  if (policy === undefined) return {};
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) {
    problems.push(
      'approvalPolicy must be an object such as { rules: [{ name, tool, decision: "allow" | "deny" | "ask", when }] }.',
    );
    return {};
  }
  const { rules, shadow, edits, defaultApprovers } = policy as ApprovalPolicy;
  if (shadow !== undefined && typeof shadow !== "boolean") {
    problems.push("approvalPolicy.shadow must be true or false.");
  }
  if (edits !== undefined && typeof edits !== "boolean") {
    problems.push("approvalPolicy.edits must be true or false.");
  }
  const defaults = checkDefaultApprovers(defaultApprovers, hasDirectory, problems);
  const common = {
    shadow: shadow === true,
    edits: edits === true,
    ...(defaults ? { defaultApprovers: defaults } : {}),
  };
  if (rules === undefined) return common;
  if (!Array.isArray(rules)) {
    problems.push("approvalPolicy.rules must be an array of rules.");
    return {};
  }
  const names = new Set<string>();
  const optionRuleNames = new Set(
    [...tools.values()].flatMap((tool) => (tool.approvalRules ?? []).map((rule) => rule.name)),
  );
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
    } else if (optionRuleNames.has(rule.name)) {
      problems.push(
        `${at}.name "${rule.name}" is the name of a rule a tool's options make; choose another, so that every decision names the rule that made it.`,
      );
    } else names.add(rule.name);
    if (!["allow", "deny", "ask"].includes(rule.decision)) {
      problems.push(`${at}.decision must be "allow", "deny" or "ask".`);
    }
    checkApproverFields(rule, at, hasDirectory, problems);
    if (rule.edits !== undefined && typeof rule.edits !== "boolean") {
      problems.push(`${at}.edits must be true or false.`);
    }
    if (
      (rule.required !== undefined ||
        rule.standing !== undefined ||
        rule.edits === true ||
        rule.roles !== undefined ||
        rule.allowSelfApproval !== undefined ||
        rule.escalateTo !== undefined) &&
      rule.decision !== "ask"
    ) {
      problems.push(
        `${at}: required, standing and edits apply to "ask" rules only, as do roles, allowSelfApproval and escalateTo.`,
      );
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
  return { rules: Object.freeze([...rules]), ...common };
}

/** The most people a rule may require to approve one action. */
const mostApprovers = 10;

/** The longest `escalateTo.afterMs`: what a timer can wait (about 24 days). */
const longestEscalationMs = 2_147_483_647;

/**
 * Checks who may answer a rule's question (or `defaultApprovers`): the
 * fields that only an `approverDirectory` can judge are refused without one.
 */
function checkApproverFields(
  fields: Pick<ApprovalRule, "required" | "roles" | "allowSelfApproval" | "escalateTo">,
  at: string,
  hasDirectory: boolean,
  problems: string[],
): void {
  const { required, roles, allowSelfApproval, escalateTo } = fields;
  if (
    required !== undefined &&
    (typeof required !== "number" ||
      !Number.isInteger(required) ||
      required < 1 ||
      required > mostApprovers)
  ) {
    problems.push(
      `${at}.required must be a whole number from 1 to ${mostApprovers}: how many distinct people must approve.`,
    );
  }
  if (roles !== undefined && !isRoleList(roles)) {
    problems.push(`${at}.roles must be a non-empty list of role names, e.g. ["oncall"].`);
  }
  if (allowSelfApproval !== undefined && typeof allowSelfApproval !== "boolean") {
    problems.push(`${at}.allowSelfApproval must be true or false.`);
  }
  if (escalateTo !== undefined) {
    const { roles: escalationRoles, afterMs } = (escalateTo ?? {}) as Partial<
      NonNullable<ApprovalRule["escalateTo"]>
    >;
    if (
      typeof escalateTo !== "object" ||
      escalateTo === null ||
      !isRoleList(escalationRoles) ||
      typeof afterMs !== "number" ||
      !Number.isInteger(afterMs) ||
      afterMs < 1 ||
      afterMs > longestEscalationMs
    ) {
      problems.push(
        `${at}.escalateTo must be { roles: ["lead"], afterMs: 120000 }: the roles asked next, and the milliseconds (a whole number from 1 to ${longestEscalationMs}) to wait for an answer first.`,
      );
    }
  }
  const needsDirectory = [
    ...(roles !== undefined ? ["roles"] : []),
    ...(allowSelfApproval !== undefined ? ["allowSelfApproval"] : []),
    ...(escalateTo !== undefined ? ["escalateTo"] : []),
    ...(typeof required === "number" && required > 2 ? [`required: ${required}`] : []),
  ];
  if (!hasDirectory && needsDirectory.length > 0) {
    problems.push(
      `${at} sets ${needsDirectory.join(", ")}, which only an approver directory can judge: give the agent approverDirectory (approverDirectory({ people }) or loadApproverDirectory(path)) to name the people, their roles and how each channel recognises them.`,
    );
  }
}

/** Checks `approvalPolicy.defaultApprovers`; returns it when it has no problem. */
function checkDefaultApprovers(
  value: unknown,
  hasDirectory: boolean,
  problems: string[],
): DefaultApprovers | undefined {
  if (value === undefined) return undefined;
  const at = "approvalPolicy.defaultApprovers";
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(`${at} must be an object such as { roles: ["oncall"], required: 1 }.`);
    return undefined;
  }
  const before = problems.length;
  const unknown = Object.keys(value).filter(
    (key) => !["roles", "required", "allowSelfApproval"].includes(key),
  );
  if (unknown.length > 0) {
    problems.push(
      `${at} takes roles, required and allowSelfApproval; ${unknown.map((key) => `"${key}"`).join(", ")} is not one of them.`,
    );
  }
  const defaults = value as DefaultApprovers;
  checkApproverFields(defaults, at, hasDirectory, problems);
  if (!hasDirectory && problems.length === before) {
    problems.push(
      `${at} says who may approve, which only an approver directory can judge: give the agent approverDirectory (approverDirectory({ people }) or loadApproverDirectory(path)).`,
    );
  }
  return problems.length === before ? Object.freeze({ ...defaults }) : undefined;
}

function isRoleList(value: unknown): value is readonly string[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((role) => typeof role === "string" && role.trim() !== "")
  );
}

/**
 * Whether a call of `tool` with `args` runs (`allow`), is refused (`deny`)
 * or asks a person (`ask`), and which rule decided. The policy's own rules
 * are asked first, then the rules of the tool's options, then its default
 * (a default that throws asks); the first of these with a matching rule
 * decides, deny over allow over ask. In shadow mode the policy's own rules
 * do not decide: their verdict is returned beside the decision.
 */
export async function decideByPolicy(
  policy: CompiledApprovalPolicy,
  tool: AnyTool,
  args: unknown,
  logger: () => Logger,
): Promise<PolicyVerdict> {
  const own = await matchTier(
    policy.rules.filter((rule) => names(rule, tool)),
    tool,
    args,
    logger,
  );
  if (own && !policy.shadow) return own;
  const rules = toolRulesOf(policy, tool);
  const fallback = (await matchTier(
    rules.filter((rule) => rule.tier === "options"),
    tool,
    args,
    logger,
  )) ??
    (await matchTier(
      rules.filter((rule) => rule.tier === "default"),
      tool,
      args,
      logger,
    )) ?? { decision: "allow" };
  if (!own) return fallback;
  const { decision, rule } = own;
  return { ...fallback, shadow: { decision, ...(rule !== undefined ? { rule } : {}) } };
}

/** Whether a tool may have a call that asks, or that a named rule decides, so its arguments must be frozen. */
export function mayBeGated(policy: CompiledApprovalPolicy, tool: AnyTool): boolean {
  return toolRulesOf(policy, tool).length > 0 || policy.rules.some((rule) => names(rule, tool));
}

/**
 * The names of the tools whose calls may change something (not `readOnly`)
 * and never ask anyone: no rule can ask about or deny them before one
 * without `when` allows them, or nothing asks (their default is
 * `needsApproval: false`). A tool whose approval depends on its arguments
 * is not listed: some of its calls ask.
 */
export function ungatedToolNames(
  tools: Iterable<AnyTool>,
  policy: CompiledApprovalPolicy,
): readonly string[] {
  const result: string[] = [];
  for (const tool of tools) {
    if (tool.readOnly !== true && ungatedBy(policy, tool)) result.push(tool.name);
  }
  return Object.freeze(result);
}

/**
 * Logs at warn level, once per rule, the tools that change something and
 * would ask by default but run without asking anyone because of a rule: a
 * tool set's `runWithoutApproval`, an option of `mcpTools`, or a rule of the
 * policy. So a policy change shows in the logs of every agent it applies to.
 */
export function warnApprovalsTurnedOff(
  tools: Iterable<AnyTool>,
  policy: CompiledApprovalPolicy,
  logger: Logger,
): void {
  const byRule = new Map<string, string[]>();
  for (const tool of tools) {
    if (tool.readOnly === true || tool.needsApproval === false) continue;
    const rule = ungatedBy(policy, tool)?.rule?.name;
    if (rule === undefined) continue;
    byRule.set(rule, [...(byRule.get(rule) ?? []), tool.name]);
  }
  for (const [rule, turnedOff] of byRule) {
    logger.warn(
      { tools: turnedOff, rule },
      `approval is turned off for ${turnedOff.join(", ")} by the rule "${rule}": their calls run without asking anyone`,
    );
  }
}

/**
 * When no call of the tool can ask or be refused, what lets them run: the
 * rule that allows every call, or none (nothing asks). Each tier in turn: a
 * rule that may refuse or ask gates the tool; one that allows every call
 * ends the search; rules that allow some calls leave it to the next tier.
 */
function ungatedBy(
  policy: CompiledApprovalPolicy,
  tool: AnyTool,
): { rule: CompiledRule | undefined } | undefined {
  const rules = toolRulesOf(policy, tool);
  const tiers = [
    policy.shadow ? [] : policy.rules.filter((rule) => names(rule, tool)),
    rules.filter((rule) => rule.tier === "options"),
    rules.filter((rule) => rule.tier === "default"),
  ];
  for (const tier of tiers) {
    if (tier.some((rule) => rule.outcomes.some((outcome) => outcome !== "allow"))) return undefined;
    const allowsAll = tier.find((rule) => rule.fixed);
    if (allowsAll) return { rule: allowsAll };
  }
  return { rule: undefined };
}

function names(rule: CompiledRule, tool: AnyTool): boolean {
  return rule.tools === undefined || rule.tools.has(tool.name);
}

/** The rules of the tool's options and its default, compiled with the policy (or now, for a tool it was not given). */
function toolRulesOf(policy: CompiledApprovalPolicy, tool: AnyTool): readonly CompiledRule[] {
  return (
    policy.toolRules.get(tool.name) ??
    compileApprovalPolicy({ defaultApprovers: policy.defaultApprovers }, [tool]).toolRules.get(
      tool.name,
    ) ??
    []
  );
}

/** What the matching rules of one tier decide: deny over allow over ask; `undefined` when none matches. */
async function matchTier(
  rules: readonly CompiledRule[],
  tool: AnyTool,
  args: unknown,
  logger: () => Logger,
): Promise<PolicyVerdict | undefined> {
  const matched: { rule: CompiledRule; decision: ApprovalRuleDecision }[] = [];
  for (const rule of rules) {
    const decision = await rule.decide(args, tool.target, logger);
    if (decision !== undefined) matched.push({ rule, decision });
  }
  const named = (rule: CompiledRule) => (rule.name !== undefined ? { rule: rule.name } : {});
  for (const decision of ["deny", "allow"] as const) {
    const found = matched.find((candidate) => candidate.decision === decision);
    if (found) return { decision, ...named(found.rule) };
  }
  const asking = matched.filter((candidate) => candidate.decision === "ask");
  const first = asking[0];
  if (!first) return undefined;
  const required = Math.max(...asking.map(({ rule }) => rule.required ?? 1));
  const approvers = combineRequirements(
    asking.flatMap(({ rule }) => (rule.approvers ? [rule.approvers] : [])),
  );
  const offering = asking.find(({ rule }) => rule.standing !== undefined)?.rule;
  return {
    decision: "ask",
    ...named(first.rule),
    ...(required > 1 ? { required } : {}),
    // A question two people must approve offers no standing approval, and no edit.
    ...(offering?.standing && offering.name !== undefined && required === 1
      ? { standing: { rule: offering.name, offer: offering.standing } }
      : {}),
    ...(required === 1 && asking.every(({ rule }) => rule.edits === true) ? { edits: true } : {}),
    approvers,
  };
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
 * Logs what the rules of a policy in shadow mode would have decided about a
 * call that ran by its tool's default, without asking anyone (a call that
 * reaches the approval gate carries the verdict on its record instead).
 */
export function logShadowVerdict(
  logger: Logger,
  call: { toolName: string; toolCallId: string },
  shadow: ShadowVerdict,
): void {
  logger.info(
    {
      audit: "approval",
      tool: call.toolName,
      toolCallId: call.toolCallId,
      outcome: "not_asked",
      policy: shadow,
    },
    `approval policy (shadow) would have decided ${shadow.decision} for ${call.toolName}`,
  );
}
