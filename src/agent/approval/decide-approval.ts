import type { Logger } from "pino";
import { redactText } from "../../internal/redact.js";
import type { AnyTool, ToolContext } from "../../tools/tool.js";
import {
  type ApprovalRecord,
  type ApprovedRecord,
  consultApprover,
  type ExpiredRecord,
  gateRefusal,
  type PendingRecord,
  type RefusedRecord,
  type ShadowVerdict,
} from "../approval-gate.js";
import type { WhoMayApprove } from "../approver.js";
import { buildApprovalAction } from "../build-approval-action.js";
import { describeThrown } from "../describe-thrown.js";
import type { PendingToolCall } from "../durable/run-state.js";
import type { FrozenArguments } from "../freeze-arguments.js";
import type { ToolCallEnvironment } from "../tool-call-environment.js";
import { buildActionView } from "./action-view.js";
import { standingUseApprovalId } from "./approval-id.js";
import { decideByPolicy, type PolicyVerdict, policyRefusal } from "./approval-policy.js";
import { checkApprovedEdit } from "./approved-edit.js";
import { requirementOf } from "./approver-requirement.js";
import { type ApproverCheck, checkApprovers, whoMayApproveFor } from "./check-approvers.js";
import { type StandingScope, sameValueOf, standingScopeFor } from "./standing-approval.js";

/** A decision that is final: the call runs (approved) or does not. */
export type FinalApproval = ApprovedRecord | RefusedRecord | ExpiredRecord;

/**
 * What the decision step decided about one call. `ungated`: neither the
 * policy nor the tool asks for approval, so the call runs with no decision
 * to record. `pending`: the question is out and the answer comes later.
 * `decided`: the one final record; when approved, `args` are what runs and
 * `edit` says how a person changed the call.
 */
export type CallDecision =
  | { kind: "ungated"; shadow?: ShadowVerdict | undefined }
  | { kind: "pending"; approval: PendingRecord }
  | {
      kind: "decided";
      approval: FinalApproval;
      /** When the decision was asked for (the question sent, the policy consulted). */
      requestedAt: Date;
      /** The arguments that run when approved: the frozen copy, or the person's edit. */
      args?: unknown;
      /** The person changed the call: what the model asked and what runs instead. */
      edit?: { asked: unknown; summary: string };
    };

/** What deciding one call needs besides the environment. */
export interface DecisionInput {
  tool: AnyTool;
  /** The arguments as the tool's schema read them. */
  args: unknown;
  /** The frozen copy the approval binds to; undefined when the arguments have no faithful JSON form. */
  frozen: FrozenArguments | undefined;
  /** Why they have none. */
  notFingerprintable?: unknown;
  /** What a resumed run knows of the call. */
  prior: PendingToolCall | undefined;
  /** Whether the run may suspend on this call's question (its arguments hold no secret). */
  canSuspend: () => boolean;
  context: ToolContext;
  logger: () => Logger;
  /** Records a question that expired before another is asked (`onApprovalExpired: "ask-again"`). */
  publishExpired: (approval: ExpiredRecord, requestedAt: Date) => Promise<void>;
}

/** With `onApprovalExpired: "ask-again"`, the most questions put about one call. */
const maxQuestionsPerCall = 10;

/**
 * The one decision step of a tool call: the approval policy, then a
 * standing approval of the run, then the question to a person, and a
 * person's edit checked again by the tool's schema and the policy. Whatever
 * decides, one final record comes out; nothing here records, logs or runs.
 */
export async function decideApproval(
  input: DecisionInput,
  environment: ToolCallEnvironment,
): Promise<CallDecision> {
  const { tool, frozen, logger } = input;
  const name = tool.name;
  const requestedAt = new Date();
  const verdict = await decideByPolicy(
    environment.approvalPolicy,
    tool,
    frozen?.args ?? input.args,
    logger,
  );
  const shadow = verdict.shadow ? { policy: verdict.shadow } : {};
  if (verdict.decision === "deny") {
    const approval = policyRefusal(name, frozen?.fingerprint ?? "", verdict.rule ?? "");
    return { kind: "decided", approval, requestedAt };
  }
  if (verdict.decision === "allow") {
    if (verdict.rule === undefined || !frozen) return { kind: "ungated", shadow: verdict.shadow };
    const approval: ApprovedRecord = {
      outcome: "approved",
      fingerprint: frozen.fingerprint,
      rule: verdict.rule,
      ...shadow,
    };
    return { kind: "decided", approval, requestedAt, args: frozen.args };
  }
  if (!frozen) {
    const reason = `its arguments cannot be bound to an approval (${redactText(describeThrown(input.notFingerprintable))}), so it was not run`;
    const approval: RefusedRecord = {
      outcome: "refused",
      fingerprint: "",
      code: "not_fingerprintable",
      reason,
      ...shadow,
    };
    return { kind: "decided", approval, requestedAt };
  }
  // A standing approval given earlier in the run may cover the call; else the question may offer
  // one. A call whose question is already out is decided by its answer (it may be a denial).
  let offered: StandingScope | undefined;
  if (verdict.standing && input.prior?.phase !== "awaiting_approval") {
    const { rule, offer } = verdict.standing;
    const sameValue = sameValueOf(offer, frozen.args, tool.target, logger);
    if (sameValue !== undefined) {
      const like = { rule, toolName: name, target: tool.target, sameValue };
      const now = new Date();
      const coveredBy = environment.journal.takeStandingUse(
        { ...like, fingerprint: frozen.fingerprint },
        now,
      );
      if (coveredBy) {
        // Each use is an approval of its own, spent once under its own id.
        const approval: ApprovedRecord = {
          outcome: "approved",
          fingerprint: frozen.fingerprint,
          approvalId: standingUseApprovalId(
            environment.journal.runId,
            coveredBy.approvalId,
            coveredBy.use,
          ),
          coveredBy,
          ...shadow,
        };
        return { kind: "decided", approval, requestedAt: now, args: frozen.args };
      }
      offered = standingScopeFor(rule, offer, like, now);
    }
  }
  // With a directory, the question says who may answer it, and each answer is judged by it.
  const check = approverCheckOf(environment, verdict, logger);
  const whoMayApprove = check ? await whoMayApproveFor(check) : undefined;
  const asking = {
    ...(offered ? { standing: offered } : {}),
    ...(verdict.required !== undefined ? { requiredApprovers: verdict.required } : {}),
    ...(verdict.edits ? { editable: true } : {}),
    ...(whoMayApprove ? { whoMayApprove } : {}),
  };
  let askedAt = new Date();
  let asked = await askApproval(input, environment, { prior: input.prior, ...asking });
  // "ask-again": an expired question is followed by a new one (never a reuse of the old answer).
  for (
    let questions = 1;
    asked.outcome === "expired" &&
    environment.onApprovalExpired === "ask-again" &&
    questions < maxQuestionsPerCall &&
    !environment.signal.aborted;
    questions++
  ) {
    await input.publishExpired({ ...asked, ...shadow }, askedAt);
    logger().info(
      { question: questions + 1 },
      `approval question for ${name} expired; asking again`,
    );
    askedAt = new Date();
    asked = await askApproval(input, environment, { prior: undefined, ...asking });
  }
  if (asked.outcome === "pending") return { kind: "pending", approval: asked };
  const answered = asked;
  if (check) asked = await checkApprovers(asked, check);
  if (asked.outcome !== "approved" || asked.edited === undefined) {
    const approval = { ...asked, ...shadow };
    return {
      kind: "decided",
      approval,
      requestedAt: askedAt,
      ...(approval.outcome === "approved" ? { args: frozen.args } : {}),
    };
  }
  return decideEdit(
    input,
    environment,
    { ...asked, edited: asked.edited },
    askedAt,
    answered as ApprovedRecord,
  );
}

/** What judging who answered needs, when the agent has an approver directory and the policy asks. */
function approverCheckOf(
  environment: ToolCallEnvironment,
  verdict: PolicyVerdict,
  logger: () => Logger,
): ApproverCheck | undefined {
  const directory = environment.approverDirectory;
  if (!directory || verdict.decision !== "ask") return undefined;
  return {
    directory,
    requirement: verdict.approvers ?? requirementOf(undefined),
    starter: environment.starter,
    logger: logger(),
  };
}

/**
 * A call the person changed before approving: only the edited action may
 * run, once the tool's schema accepts it and no rule of the approval policy
 * denies it (a person's approval does not lift a rule that denies what they
 * wrote, nor stand for the approvers a rule requires of it).
 */
async function decideEdit(
  input: DecisionInput,
  environment: ToolCallEnvironment,
  approval: ApprovedRecord & { edited: { arguments: unknown } },
  requestedAt: Date,
  answered: ApprovedRecord,
): Promise<CallDecision> {
  const { tool, logger } = input;
  const name = tool.name;
  const accepted = await checkApprovedEdit(tool, approval, input.context);
  if (!("frozen" in accepted)) {
    return { kind: "decided", approval: { ...accepted, ...noteOf(approval) }, requestedAt };
  }
  const verdict = await decideByPolicy(
    environment.approvalPolicy,
    tool,
    accepted.frozen.args,
    logger,
  );
  // With a directory, the people who approved are judged again by the rules that ask about the edit.
  const check = approverCheckOf(environment, verdict, logger);
  if (check && verdict.decision === "ask") {
    const judged = await checkApprovers(answered, check);
    if (judged.outcome === "refused") {
      const reason = `${judged.reason}, for this call of ${name} as the person changed it, so it was not run`;
      return { kind: "decided", approval: { ...judged, reason }, requestedAt };
    }
  }
  const required = verdict.decision === "ask" ? (verdict.required ?? 1) : 1;
  const approvers = check ? (approval.people?.length ?? 0) : (approval.approvers?.length ?? 1);
  if (verdict.decision === "deny" || required > approvers) {
    const rule = verdict.rule ?? "";
    const refused: RefusedRecord = {
      ...policyRefusal(name, accepted.frozen.fingerprint, rule),
      ...(verdict.decision === "deny"
        ? {
            reason: `the approval policy's rule "${rule}" does not allow this call of ${name} as the person changed it, so it was not run`,
          }
        : {
            code: "not_enough_approvers" as const,
            reason: `the approval policy's rule "${rule}" wants ${required} approvers for this call of ${name} as the person changed it, and ${approvers} approved it, so it was not run`,
          }),
      ...(approval.approvalId !== undefined ? { approvalId: approval.approvalId } : {}),
      ...(approval.interactionId !== undefined ? { interactionId: approval.interactionId } : {}),
      ...(approval.approverLink !== undefined ? { approverLink: approval.approverLink } : {}),
    };
    return { kind: "decided", approval: refused, requestedAt };
  }
  return {
    kind: "decided",
    approval: { ...approval, edited: { arguments: accepted.frozen.args } },
    requestedAt,
    args: accepted.frozen.args,
    edit: { asked: input.args, summary: accepted.action.description.summary },
  };
}

function noteOf(approval: ApprovedRecord): { note?: string } {
  return approval.note !== undefined ? { note: approval.note } : {};
}

/** Puts the question (or reads an earlier one's answer) through the gate; emits `approval-request`. */
async function askApproval(
  input: DecisionInput,
  environment: ToolCallEnvironment,
  options: {
    prior: PendingToolCall | undefined;
    standing?: StandingScope;
    requiredApprovers?: number;
    editable?: boolean;
    whoMayApprove?: WhoMayApprove | { failed: string };
  },
): Promise<ApprovalRecord> {
  const { tool, context } = input;
  const canSuspend = input.canSuspend();
  const frozen = input.frozen as FrozenArguments;
  const { stepNumber, emit, journal } = environment;
  const { prior } = options;
  const check =
    prior?.phase === "awaiting_approval" &&
    prior.approvalId !== undefined &&
    prior.ticket !== undefined &&
    prior.fingerprint !== undefined
      ? { ticket: prior.ticket, fingerprint: prior.fingerprint }
      : undefined;
  // A resumed run reads the answer against the scope the question stated, kept in its state.
  const standing = check ? prior?.standing : options.standing;
  // A resumed run reads its approval id back from its state; a new question
  // gets one derived from the run's seed and the call (the same after a crash).
  const approvalId =
    check && prior?.approvalId
      ? prior.approvalId
      : journal.approvalIdFor(input.context.toolCallId, frozen.fingerprint);
  const built = await buildApprovalAction(
    tool,
    frozen.args,
    frozen.fingerprint,
    approvalId,
    context,
  );
  const { whoMayApprove } = options;
  // A directory that listed anything but whole people: nobody can be shown whom to ask.
  if (whoMayApprove && "failed" in whoMayApprove) {
    environment.stepQuestion?.leave();
    return gateRefusal(built, "approver_error", whoMayApprove.failed);
  }
  const asked = {
    ...built,
    ...(standing ? { standing } : {}),
    ...(options.requiredApprovers !== undefined
      ? { requiredApprovers: options.requiredApprovers }
      : {}),
    ...(options.editable ? { editable: true } : {}),
    ...(whoMayApprove ? { whoMayApprove } : {}),
  };
  // What the person is shown, built once for every channel; a secret inside a value they
  // would judge cannot be shown without hiding part of that value, so nobody is asked.
  const shown = buildActionView(asked, environment.secrets.values());
  if ("secretInside" in shown) {
    environment.stepQuestion?.leave();
    return gateRefusal(
      asked,
      "secret_in_value",
      `a secret the agent knows sits inside ${shown.secretInside}; the person would have to approve it with part of that value hidden, so nobody was asked and nothing ran (pass the secret in a field of its own, or let the tool add it)`,
    );
  }
  const action = { ...asked, view: shown.view };
  if (!check) {
    emit({ type: "approval-request", stepNumber, toolCallId: context.toolCallId, action });
  }
  if (!check && environment.suspendOnApproval && !canSuspend) {
    context.logger.warn(
      "the arguments hold a secret, which a saved run never keeps; waiting for this approval instead of suspending",
    );
  }
  const allowPending = check !== undefined || (environment.suspendOnApproval && canSuspend);
  // An earlier question's answer is read by its own ticket; a new question joins the step's.
  if (check) environment.stepQuestion?.leave();
  const together = environment.stepQuestion?.ask(action, allowPending);
  if (together) return together;
  const [record] = await consultApprover({
    approver: environment.approver,
    actions: [action],
    signal: environment.signal,
    logger: environment.logger,
    allowPending,
    ...(journal.runId !== undefined ? { runId: journal.runId } : {}),
    ...(journal.task !== undefined ? { task: journal.task } : {}),
    ...(environment.bindInteraction !== undefined
      ? { bindInteraction: environment.bindInteraction }
      : {}),
    ...(check ? { check } : {}),
  });
  return record as ApprovalRecord;
}
