import type { ToolTarget } from "../../tools/tool.js";
import type { StandingApprovalOffer } from "./standing-approval.js";

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
   * For `ask`: how many distinct approvers must each approve the same
   * action (M of N); any denial refuses. `2` for production deletions, say.
   * Without an `approverDirectory` approvers are told apart by their links
   * (1 or 2); with one, by person (up to 10).
   * @default 1
   */
  required?: number | undefined;
  /**
   * For `ask`, with an `approverDirectory`: only people holding one of these
   * roles may approve. An answer from anyone else is refused
   * (`approver_not_allowed`) and nothing runs.
   * @default anyone in the directory
   */
  roles?: readonly string[] | undefined;
  /**
   * For `ask`, with an `approverDirectory`: whether the person who started
   * the run (`RunOptions.startedBy`) may be one of its approvers. When not,
   * their answer is refused (`self_approval`) and they are not asked.
   * @default false
   */
  allowSelfApproval?: boolean | undefined;
  /**
   * For `ask`, with an `approverDirectory`: when nobody decided within
   * `afterMs`, the people holding `roles` are asked as well (a channel
   * that reaches people itself, such as messaging, asks them).
   *
   * @example
   * escalateTo: { roles: ["lead"], afterMs: 120_000 }
   */
  escalateTo?: { roles: readonly string[]; afterMs: number } | undefined;
  /**
   * For `ask`: the question may offer "approve this and the next actions like
   * it in this run", within this scope. Never offered when two approvers
   * are required. A person's later denial of a call of the tool in the run,
   * or a `deny` rule, always wins over it.
   */
  standing?: StandingApprovalOffer | undefined;
  /**
   * For `ask`: the person may change the call's arguments before approving
   * it ("Approve with changes"); the changed call then runs instead, once
   * the tool's schema and this policy accept it. Never offered when two
   * approvers are required. An edit of a question whose rule does not allow
   * edits is refused (`invalid_edit`).
   * @default false
   */
  edits?: boolean | undefined;
}

/**
 * The one place that decides whether a tool call runs, is refused, or asks
 * a person. Its rules are asked first; then the rules the options of the
 * tool's set or of `mcpTools` make (`runWithoutApproval`, `needsApproval`,
 * `allowedCallbackHosts`, each named after its option, e.g. `orderTools:
 * runWithoutApproval`); last the tool's own default (`needsApproval`). The
 * first of these with a matching rule decides; when several of its rules
 * match, `deny` wins over `allow`, and `allow` over `ask`. So a `deny` rule
 * here wins over a tool set's `runWithoutApproval`.
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
   * trail), but the tools' options and defaults decide: gated calls still ask.
   * @default false
   */
  shadow?: boolean | undefined;
  /**
   * Whether the questions no rule of yours asks (those of the tools'
   * options and defaults, `needsApproval`) let the person change the call
   * before approving it, as a rule's `edits` does.
   * @default false
   */
  edits?: boolean | undefined;
  /**
   * With an `approverDirectory`: who may answer the questions no rule of
   * yours asks (those of a tool's `needsApproval` and of the tools' sets'
   * options), as an `ask` rule's `roles`, `required` and
   * `allowSelfApproval` say for its own.
   * @default anyone in the directory, 1 person, not the person who started the run
   */
  defaultApprovers?: DefaultApprovers | undefined;
}

/** Who may answer the questions no rule of yours asks: {@link ApprovalPolicy.defaultApprovers}. */
export interface DefaultApprovers {
  /** Only people holding one of these roles may approve. @default anyone in the directory */
  roles?: readonly string[] | undefined;
  /** How many distinct people must each approve (1 to 10). @default 1 */
  required?: number | undefined;
  /** Whether the person who started the run may be one of them. @default false */
  allowSelfApproval?: boolean | undefined;
}
