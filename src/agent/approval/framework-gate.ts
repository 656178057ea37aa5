import type { Logger } from "pino";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { silentLogger } from "../../internal/logger.js";
import { redactText, SecretRegistry, secretsOf } from "../../internal/redact.js";
import type { JsonSchema } from "../../tools/json-schema.js";
import type { ActionDescription, AnyTool, ToolContext, ToolTarget } from "../../tools/tool.js";
import {
  type ApprovalRecord,
  type ApprovedRecord,
  consultApprover,
  gateRefusal,
  type RefusedRecord,
} from "../approval-gate.js";
import type { ApprovalAction, Approver } from "../approver.js";
import { buildApprovalAction, showApprovalAction } from "../build-approval-action.js";
import { describeThrown } from "../describe-thrown.js";
import { type FrozenArguments, freezeArguments } from "../freeze-arguments.js";
import { toolMessages } from "../tool-messages.js";
import {
  type ApprovalAuditLog,
  type ApprovalAuditRecord,
  publishApprovalDecision,
} from "./approval-audit-record.js";
import { newApprovalId } from "./approval-id.js";
import { checkApprovalPolicy, decideByPolicy, policyRefusal } from "./approval-policy.js";
import type { ApprovalPolicy } from "./approval-rule.js";
import { checkApprovedEdit } from "./approved-edit.js";
import type { ApproverDirectory, ApproverIdentity } from "./approver-directory.js";
import { checkApproverDirectory } from "./approver-directory.js";
import { type ApproverRequirement, requirementOf } from "./approver-requirement.js";
import { type ApproverCheck, checkApprovers, whoMayApproveFor } from "./check-approvers.js";
import { compileApprovalPolicy } from "./compile-approval-policy.js";
import type { FinalApproval } from "./decide-approval.js";
import { type IssuedApprovalCheck, IssuedApprovals } from "./issued-approvals.js";
import { redactingApprover } from "./redacting-approver.js";
import { findStartedByProblem, resolveRunStarter } from "./run-starter.js";

/**
 * Who started the run a framework's call belongs to: a person's id in the
 * `approverDirectory` or their identity on a channel, or a function giving
 * it for each call from the framework's own context (the AI SDK tool's
 * `context`, the Agents SDK's `RunContext.context`).
 */
export type FrameworkStartedBy =
  | string
  | ApproverIdentity
  | ((call: {
      toolName: string;
      toolCallId: string;
      context: unknown;
    }) => string | ApproverIdentity | undefined | Promise<string | ApproverIdentity | undefined>);

/** How a call of one of the framework's tools reads to the person, and where it acts. */
export interface GatedToolDetails<Args = unknown> {
  /** Where the calls act; named in the question and part of the fingerprint. */
  target?: ToolTarget | undefined;
  /** Words for the person; a generic description of the arguments when absent. */
  describeAction?:
    | ((args: Args, context: ToolContext) => ActionDescription | Promise<ActionDescription>)
    | undefined;
}

/** What the gate inside another framework is built from. */
export interface FrameworkGateOptions {
  /** Asks a person on a channel of its own (messaging, an inbox page, elicitation, yours). */
  approver?: Approver | undefined;
  /** The rules deciding which calls run, are refused, or ask. */
  approvalPolicy?: ApprovalPolicy | undefined;
  /** Where every decision's audit record is appended before its call runs. */
  auditLog?: ApprovalAuditLog | undefined;
  /** Called with every decision's audit record. */
  onApprovalDecided?: ((record: ApprovalAuditRecord) => void | Promise<void>) | undefined;
  /** Secrets that must never reach the person, the audit trail or a log. */
  secrets?: readonly string[] | undefined;
  logger?: Logger | undefined;
  /** Who may approve: every answer is judged by it, as the agent's own gate judges them. */
  approverDirectory?: ApproverDirectory | undefined;
  /** Who started the run, for self-approval (with `approverDirectory`). */
  startedBy?: FrameworkStartedBy | undefined;
}

/**
 * The problems of the options every framework's gate shares: the approver
 * must be one (with `ask` and `read`), the lifetime of an approval a
 * positive number, and `toolDetails` must name only the tools given.
 */
export function gateOptionProblems(
  options: { approver?: unknown; toolDetails?: object | undefined },
  toolNames: readonly string[],
  lifetime: { option: string; value: number | undefined },
): string[] {
  const problems: string[] = [];
  const approver = options.approver as Partial<Approver> | undefined;
  if (
    approver !== undefined &&
    (typeof approver?.ask !== "function" || typeof approver?.read !== "function")
  ) {
    problems.push(
      "approvalGate: approver must be a Switchyard Approver (with ask and read), e.g. new MessagingApprover({ ... }).",
    );
  }
  const { option, value } = lifetime;
  if (value !== undefined && (!Number.isFinite(value) || value <= 0)) {
    problems.push(`approvalGate: ${option} must be a positive number of milliseconds.`);
  }
  for (const name of Object.keys(options.toolDetails ?? {})) {
    if (!toolNames.includes(name)) {
      problems.push(`approvalGate: toolDetails names "${name}", which is not one of tools.`);
    }
  }
  return problems;
}

/** One call of a framework's tool reaching the gate. */
export interface GatedCall {
  toolName: string;
  toolCallId: string;
  /** The arguments as the framework parsed them. */
  args: unknown;
  /** The tool's own default (its `needsApproval`), for this call. */
  needsApproval: boolean | ((args: unknown) => boolean | Promise<boolean>);
  signal?: AbortSignal | undefined;
  /** The framework's own context of the run (given to a `startedBy` function). */
  context?: unknown;
}

/** What the policy decided about a call before anyone is asked. */
export type PolicyOutcome =
  | { kind: "refused"; approval: RefusedRecord }
  | { kind: "run"; args: unknown; approval?: ApprovedRecord }
  | {
      kind: "ask";
      frozen: FrozenArguments;
      editable: boolean;
      required?: number;
      /** Who may approve, as the rules asking say (used with an `approverDirectory`). */
      approvers?: ApproverRequirement;
    };

/** A decision that is final, the arguments it lets run, and how a person changed them. */
export interface GateDecision {
  approval: FinalApproval;
  requestedAt: Date;
  /** When approved: what runs. */
  args?: unknown;
  /** The person changed the call: what was asked, and what runs, in the tool's words. */
  edit?: { asked: unknown; summary: string };
}

/**
 * Switchyard's approval gate for the tools of another agent framework (the
 * AI SDK, the OpenAI Agents SDK): the approval policy, the approver, a
 * person's edit checked again, one audit record per decision, and the
 * approvals issued to client-sent state. The framework's adapter decides
 * when to ask and what runs; every rule lives here.
 */
export class FrameworkGate {
  readonly issued = new IssuedApprovals();
  readonly #options: FrameworkGateOptions;
  readonly #approver: Approver | undefined;
  readonly #policy: ApprovalPolicy;
  readonly #details: ReadonlyMap<string, GatedToolDetails>;
  readonly #parameters: Map<string, JsonSchema>;
  readonly #secrets: SecretRegistry;
  readonly #logger: Logger;

  /**
   * @param options the gate's options (an adapter's own options may be given whole)
   * @param tools by name: the JSON Schema of the arguments (when known now)
   * @param toolDetails by name: targets and descriptions
   */
  constructor(
    options: FrameworkGateOptions,
    tools: ReadonlyMap<string, JsonSchema>,
    toolDetails: Readonly<Record<string, GatedToolDetails | undefined>> = {},
  ) {
    this.#options = options;
    this.#secrets = new SecretRegistry()
      .add(...(options.secrets ?? []))
      .include(secretsOf(options.approver));
    this.#approver = options.approver
      ? redactingApprover(options.approver, this.#secrets)
      : undefined;
    this.#logger = options.logger ?? silentLogger();
    this.#details = new Map([...tools.keys()].map((name) => [name, toolDetails[name] ?? {}]));
    this.#parameters = new Map(tools);
    const problems: string[] = [];
    const shims = new Map([...tools.keys()].map((name) => [name, this.#shim(name, false)]));
    const directory = options.approverDirectory;
    checkApprovalPolicy(options.approvalPolicy, shims, problems, directory !== undefined);
    checkApproverDirectory(directory, problems);
    if (directory !== undefined && options.approver === undefined) {
      problems.push(
        "approverDirectory needs an approver that says who answered (a MessagingApprover, the AG-UI or MCP elicitation approvers): an approval given in the chat or on the run state names nobody, so the directory would refuse every one.",
      );
    }
    const { startedBy } = options;
    if (startedBy !== undefined && typeof startedBy !== "function") {
      const problem = findStartedByProblem(startedBy);
      if (problem) problems.push(`startedBy ${problem}`);
    }
    if (problems.length > 0) {
      throw new ConfigurationError(problems.map((problem) => `approvalGate: ${problem}`));
    }
    this.#policy = options.approvalPolicy ?? {};
  }

  /** The JSON Schema of a tool's arguments, once the framework has it (shown to a person who edits). */
  setParameters(toolName: string, parameters: JsonSchema): void {
    this.#parameters.set(toolName, parameters);
  }

  /** Whether an approver asks the person (else the person answers through client-sent state). */
  get hasApprover(): boolean {
    return this.#approver !== undefined;
  }

  /**
   * What the approval policy decides for the call: refused (a `deny` rule,
   * or arguments no approval can bind to), run (nothing asks, or an `allow`
   * rule, named), or ask a person.
   */
  async judge(call: GatedCall): Promise<PolicyOutcome> {
    const tool = this.#shim(call.toolName, call.needsApproval);
    const policy = compileApprovalPolicy(this.#policy, [tool]);
    const logger = () => this.#logger;
    let frozen: FrozenArguments | undefined;
    let notFingerprintable: unknown;
    try {
      frozen = freezeArguments(call.toolName, call.args, tool.target);
    } catch (error) {
      notFingerprintable = error;
    }
    const verdict = await decideByPolicy(policy, tool, frozen?.args ?? call.args, logger);
    if (verdict.decision === "deny") {
      return {
        kind: "refused",
        approval: policyRefusal(call.toolName, frozen?.fingerprint ?? "", verdict.rule ?? ""),
      };
    }
    if (verdict.decision === "allow") {
      if (verdict.rule === undefined || !frozen) return { kind: "run", args: call.args };
      return {
        kind: "run",
        args: frozen.args,
        approval: { outcome: "approved", fingerprint: frozen.fingerprint, rule: verdict.rule },
      };
    }
    if (!frozen) {
      return {
        kind: "refused",
        approval: {
          outcome: "refused",
          fingerprint: "",
          code: "not_fingerprintable",
          reason: `its arguments cannot be bound to an approval (${redactText(describeThrown(notFingerprintable))}), so it was not run`,
        },
      };
    }
    return {
      kind: "ask",
      frozen,
      editable: verdict.edits === true,
      ...(verdict.required !== undefined ? { required: verdict.required } : {}),
      ...(verdict.approvers !== undefined ? { approvers: verdict.approvers } : {}),
    };
  }

  /**
   * Asks the approver about a call the policy asks about and judges the
   * answer, failing closed; a person's edit must fit the tool's schema
   * (`validate`) and the policy. Publishes nothing: see {@link publish}.
   */
  async ask(
    call: GatedCall,
    asking: Extract<PolicyOutcome, { kind: "ask" }>,
    validate: (
      args: unknown,
    ) => Promise<{ success: true; data: unknown } | { success: false; issues: string[] }>,
  ): Promise<GateDecision> {
    const requestedAt = new Date();
    const { frozen } = asking;
    const signal = call.signal ?? new AbortController().signal;
    // With a directory, the question says who may answer it, and the answer is judged by it.
    const check = await this.#approverCheck(call, asking.approvers);
    const whoMayApprove = check ? await whoMayApproveFor(check) : undefined;
    const built = await this.action(call, frozen);
    if (whoMayApprove && "failed" in whoMayApprove) {
      return { approval: gateRefusal(built, "approver_error", whoMayApprove.failed), requestedAt };
    }
    const action = {
      ...built,
      ...(asking.editable ? { editable: true } : {}),
      ...(asking.required !== undefined ? { requiredApprovers: asking.required } : {}),
      ...(whoMayApprove ? { whoMayApprove } : {}),
    };
    const [answered] = (await consultApprover({
      approver: this.#approver,
      actions: [action],
      signal,
      logger: this.#logger,
    })) as [ApprovalRecord];
    if (answered.outcome === "pending") {
      throw new Error("the gate never accepts a pending answer");
    }
    const record = check ? await checkApprovers(answered, check) : answered;
    if (record.outcome !== "approved") return { approval: record, requestedAt };
    if (record.edited === undefined) return { approval: record, requestedAt, args: frozen.args };
    return this.#decideEdit(call, { ...record, edited: record.edited }, validate, requestedAt);
  }

  /**
   * What judging who answered needs, with an `approverDirectory`: the
   * requirement of the rules asking, and the run's starter from `startedBy`
   * (an id the directory does not know is a ConfigurationError: nothing runs).
   */
  async #approverCheck(
    call: GatedCall,
    approvers: ApproverRequirement | undefined,
  ): Promise<ApproverCheck | undefined> {
    const directory = this.#options.approverDirectory;
    if (directory === undefined) return undefined;
    const { startedBy } = this.#options;
    const given =
      typeof startedBy === "function"
        ? await startedBy({
            toolName: call.toolName,
            toolCallId: call.toolCallId,
            context: call.context,
          })
        : startedBy;
    const problem = given === undefined ? undefined : findStartedByProblem(given);
    if (problem) {
      throw new ConfigurationError(
        `approvalGate: the startedBy function gave a value that ${problem}; the call of ${call.toolName} was not run`,
      );
    }
    return {
      directory,
      requirement: approvers ?? requirementOf(this.#policy.defaultApprovers),
      starter: await resolveRunStarter(directory, given),
      logger: this.#logger,
    };
  }

  /** The action a person is asked about (described, redacted by the approver wrapper), under a new approval id. */
  async action(
    call: GatedCall,
    frozen: FrozenArguments,
    approvalId = newApprovalId(undefined),
  ): Promise<ApprovalAction> {
    const built = await buildApprovalAction(
      this.#shim(call.toolName, call.needsApproval),
      frozen.args,
      frozen.fingerprint,
      approvalId,
      this.#context(call),
    );
    // What a client is shown (the chat's request reason) holds no secret the gate knows either.
    return showApprovalAction(built, this.#secrets);
  }

  /**
   * Records a final decision once: the audit log (an approval whose record
   * cannot be appended becomes a refusal), the log line, `onApprovalDecided`.
   */
  async publish(
    call: Pick<GatedCall, "toolName" | "toolCallId">,
    approval: FinalApproval,
    requestedAt: Date,
  ): Promise<FinalApproval> {
    return (await publishApprovalDecision(
      {
        log: this.#options.auditLog,
        onApprovalDecided: this.#options.onApprovalDecided,
        secrets: this.#secrets,
        logger: this.#logger,
      },
      { toolName: call.toolName, toolCallId: call.toolCallId, runId: undefined },
      approval,
      requestedAt,
    )) as FinalApproval;
  }

  /**
   * Records what checking an approval that came back in client-sent state
   * found: the person's approval (with what they wrote), or why it cannot
   * be used (refused or expired). Publishes through {@link publish}.
   */
  async publishCheck(
    call: Pick<GatedCall, "toolName" | "toolCallId">,
    checked: IssuedApprovalCheck,
    note?: string,
  ): Promise<FinalApproval> {
    if ("usable" in checked) {
      const { fingerprint, approvalId, requestedAt } = checked.usable;
      const written = note !== undefined && note.trim() !== "" ? { note: redactText(note) } : {};
      return this.publish(
        call,
        { outcome: "approved", fingerprint, approvalId, ...written },
        requestedAt,
      );
    }
    const requestedAt = checked.issued?.requestedAt ?? new Date();
    return this.publish(
      call,
      "expired" in checked ? checked.expired : checked.refused,
      requestedAt,
    );
  }

  /** What the model reads of a call that did not run: refused or expired, never as a success. */
  static notRun(toolName: string, approval: Exclude<FinalApproval, ApprovedRecord>): string {
    return approval.outcome === "expired"
      ? toolMessages.expired(toolName, approval.reason)
      : toolMessages.refused(toolName, approval.code, approval.reason, approval.note);
  }

  /** What the model reads of a call the person changed: what was asked, what ran, its result. */
  static edited(
    toolName: string,
    edit: { asked: unknown; summary: string },
    ran: unknown,
    content: string,
    note: string | undefined,
  ): string {
    return toolMessages.editedByPerson(toolName, { ...edit, ran }, content, note);
  }

  async #decideEdit(
    call: GatedCall,
    approval: ApprovedRecord & { edited: { arguments: unknown } },
    validate: (
      args: unknown,
    ) => Promise<{ success: true; data: unknown } | { success: false; issues: string[] }>,
    requestedAt: Date,
  ): Promise<GateDecision> {
    const checked = await validate(structuredClone(approval.edited.arguments));
    const shim = {
      ...this.#shim(call.toolName, call.needsApproval),
      checkArguments: () => checked,
    } as AnyTool;
    const accepted = await checkApprovedEdit(shim, approval, this.#context(call));
    if (!("frozen" in accepted)) return { approval: accepted, requestedAt };
    const again = await this.judge({ ...call, args: accepted.frozen.args });
    // With a directory, the people who approved are judged again by the rules that ask about the edit.
    const check = again.kind === "ask" && (await this.#approverCheck(call, again.approvers));
    if (check) {
      const judged = await checkApprovers(approval, check);
      if (judged.outcome === "refused") {
        const reason = `${judged.reason}, for this call of ${call.toolName} as the person changed it, so it was not run`;
        return { approval: { ...judged, reason }, requestedAt };
      }
    }
    const approvers = check ? (approval.people?.length ?? 0) : (approval.approvers?.length ?? 1);
    if (again.kind === "refused" || (again.kind === "ask" && (again.required ?? 1) > approvers)) {
      const refused: RefusedRecord = {
        outcome: "refused",
        fingerprint: accepted.frozen.fingerprint,
        code: again.kind === "refused" ? again.approval.code : "not_enough_approvers",
        reason: `the approval policy does not let this call of ${call.toolName} run as the person changed it, so it was not run`,
        ...(approval.approvalId !== undefined ? { approvalId: approval.approvalId } : {}),
        ...(approval.interactionId !== undefined ? { interactionId: approval.interactionId } : {}),
      };
      return { approval: refused, requestedAt };
    }
    return {
      approval: { ...approval, edited: { arguments: accepted.frozen.args } },
      requestedAt,
      args: accepted.frozen.args,
      edit: { asked: call.args, summary: accepted.action.description.summary },
    };
  }

  #context(call: Pick<GatedCall, "toolCallId" | "signal">): ToolContext {
    return {
      signal: call.signal ?? new AbortController().signal,
      logger: this.#logger,
      toolCallId: call.toolCallId,
    };
  }

  /** The framework's tool as the policy and the question read it. */
  #shim(name: string, needsApproval: GatedCall["needsApproval"]): AnyTool {
    const details = this.#details.get(name) ?? {};
    return {
      name,
      description: "",
      parameters: this.#parameters.get(name) ?? { type: "object" },
      checkArguments: (args: unknown) => ({ success: true, data: args }),
      execute: () => Promise.reject(new Error("the framework runs its own tools")),
      needsApproval,
      ...(details.target ? { target: details.target } : {}),
      ...(details.describeAction ? { describeAction: details.describeAction } : {}),
    };
  }
}
