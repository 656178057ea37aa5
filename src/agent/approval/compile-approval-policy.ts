import type { Logger } from "pino";
import { redactText } from "../../internal/redact.js";
import type { AnyTool, ToolApprovalRule, ToolTarget } from "../../tools/tool.js";
import { describeThrown } from "../describe-thrown.js";
import type { ApprovalPolicy, ApprovalRuleDecision } from "./approval-rule.js";
import { type ApproverRequirement, requirementOf } from "./approver-requirement.js";
import type { StandingApprovalOffer } from "./standing-approval.js";

/**
 * Where a compiled rule comes from, in the order the tiers are asked:
 * `policy` (the agent's `approvalPolicy` rules), `options` (the rules a
 * tool set's or `mcpTools`' options make) and `default` (the tool's own
 * `needsApproval`). The first tier with a matching rule decides.
 */
export type RuleTier = "policy" | "options" | "default";

/** One rule as the policy evaluates it, whatever declared it. */
export interface CompiledRule {
  /** Named in every decision the rule makes; absent for a tool's default. */
  name: string | undefined;
  tier: RuleTier;
  /** The tool names it is about; absent: every tool. */
  tools: ReadonlySet<string> | undefined;
  /** What it may decide, for telling which tools never ask (`ungatedToolNames`). */
  outcomes: readonly ApprovalRuleDecision[];
  /** It decides the same for every call of its tools. */
  fixed: boolean;
  /** What it decides for one call; `undefined` when it does not apply. Never throws (fail closed). */
  decide(
    args: unknown,
    target: ToolTarget | undefined,
    logger: () => Logger,
  ): ApprovalRuleDecision | undefined | Promise<ApprovalRuleDecision | undefined>;
  /** For `ask` rules of the policy: how many distinct approvers must approve. */
  required?: number | undefined;
  /** For `ask` rules of the policy: the standing approval the question may offer. */
  standing?: StandingApprovalOffer | undefined;
  /** For `ask` rules: the person may change the call before approving it. */
  edits?: boolean | undefined;
  /**
   * For `ask` rules: who may approve, with an `approverDirectory` (a policy
   * rule's own; `defaultApprovers` for the tools' options and defaults).
   */
  approvers?: ApproverRequirement | undefined;
}

/** The agent's approval policy with every declaration compiled into ordered, named rules. */
export interface CompiledApprovalPolicy {
  /** Shadow mode: the `policy` tier is only recorded; the other tiers decide. */
  readonly shadow: boolean;
  /** The `approvalPolicy` rules, in the order given. */
  readonly rules: readonly CompiledRule[];
  /** By tool name: the rules of its options, then its default. */
  readonly toolRules: ReadonlyMap<string, readonly CompiledRule[]>;
  /** Who answers the questions of the tools' options and defaults (`approvalPolicy.defaultApprovers`). */
  readonly defaultApprovers?: ApprovalPolicy["defaultApprovers"];
}

/**
 * The one place the declarations about approval become the rules
 * `decideByPolicy` evaluates: the agent's `approvalPolicy` rules first; then,
 * per tool, the rules its tool set's or `mcpTools`' options make
 * (`runWithoutApproval`, `needsApproval`, `allowedCallbackHosts`, carried as
 * the tool's `approvalRules`); last the tool's default `needsApproval`.
 * Assumes the policy was checked (`checkApprovalPolicy`).
 */
export function compileApprovalPolicy(
  policy: ApprovalPolicy,
  tools: Iterable<AnyTool>,
): CompiledApprovalPolicy {
  const rules = (policy.rules ?? []).map((rule): CompiledRule => {
    const { when, decision } = rule;
    return {
      name: rule.name,
      tier: "policy",
      tools:
        rule.tool === undefined
          ? undefined
          : new Set(typeof rule.tool === "string" ? [rule.tool] : rule.tool),
      outcomes: [decision],
      fixed: when === undefined,
      decide:
        when === undefined
          ? () => decision
          : async (args, target, logger) => {
              try {
                return (await when(args, target)) === true ? decision : undefined;
              } catch (error) {
                // A rule that throws applies when it would refuse or ask, never when it would allow.
                const holds = decision !== "allow";
                logger().warn(
                  { rule: rule.name, error: redactText(describeThrown(error)) },
                  `approval rule "${rule.name}" threw; it ${holds ? "applies" : "does not apply"} (fail closed)`,
                );
                return holds ? decision : undefined;
              }
            },
      ...(rule.required !== undefined ? { required: rule.required } : {}),
      ...(rule.standing !== undefined ? { standing: rule.standing } : {}),
      ...(rule.edits === true ? { edits: true } : {}),
      ...(decision === "ask" ? { approvers: requirementOf(rule) } : {}),
    };
  });
  // The questions of the tools' options and defaults allow edits when the policy says so,
  // and are answered by the people `defaultApprovers` names.
  const defaults = policy.defaultApprovers;
  const edits = {
    ...(policy.edits === true ? { edits: true } : {}),
    ...(defaults?.required !== undefined ? { required: defaults.required } : {}),
    approvers: requirementOf(defaults),
  };
  const toolRules = new Map<string, readonly CompiledRule[]>();
  for (const tool of tools) {
    const compiled = [
      ...(tool.approvalRules ?? []).map((rule) => optionRule(tool, rule)),
      ...defaultRule(tool),
    ].map((rule) => ({ ...rule, ...edits }));
    toolRules.set(tool.name, Object.freeze(compiled));
  }
  return Object.freeze({
    shadow: policy.shadow === true,
    rules: Object.freeze(rules),
    toolRules,
    ...(defaults !== undefined ? { defaultApprovers: defaults } : {}),
  });
}

/** A rule an option of the tool's set (or `mcpTools`) makes; one that throws asks. */
function optionRule(tool: AnyTool, rule: ToolApprovalRule): CompiledRule {
  const { name, decide } = rule;
  const base = { name, tier: "options" as const, tools: new Set([tool.name]) };
  if (typeof decide !== "function") {
    // Anything but an explicit "allow" asks (fail closed).
    const decision = decide === "allow" ? "allow" : "ask";
    return { ...base, outcomes: [decision], fixed: true, decide: () => decision };
  }
  return {
    ...base,
    outcomes: ["allow", "ask"],
    fixed: false,
    decide: async (args, _target, logger) => {
      try {
        const decision = await decide(args);
        return decision === "allow" || decision === undefined ? decision : "ask";
      } catch (error) {
        logger().warn(
          { rule: name, error: redactText(describeThrown(error)) },
          `approval rule "${name}" threw; asking for approval (fail closed)`,
        );
        return "ask";
      }
    },
  };
}

/**
 * The tool's `needsApproval` as the last rule: none when it is `false` (the
 * call runs, with no decision to record), `ask` when `true`; a function is
 * called as the tool's method, and one that throws asks.
 */
function defaultRule(tool: AnyTool): CompiledRule[] {
  const { needsApproval } = tool;
  const base = { name: undefined, tier: "default" as const, tools: new Set([tool.name]) };
  if (needsApproval === false) return [];
  if (needsApproval === true) {
    return [{ ...base, outcomes: ["ask"], fixed: true, decide: () => "ask" }];
  }
  return [
    {
      ...base,
      outcomes: ["ask"],
      fixed: false,
      decide: async (args, _target, logger) => {
        try {
          return (await needsApproval.call(tool, args)) !== false ? "ask" : undefined;
        } catch (error) {
          logger().warn(
            { error: redactText(describeThrown(error)) },
            "needsApproval threw; asking for approval",
          );
          return "ask";
        }
      },
    },
  ];
}
