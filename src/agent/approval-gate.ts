import type { Logger } from "pino";
import { actionFingerprint } from "../internal/canonical-json.js";
import { redactText } from "../internal/redact.js";
import { abortable } from "./abortable.js";
import {
  type ApproverIdentity,
  answeringIdentity,
  isApproverIdentity,
  type RecognisedApprover,
} from "./approval/approver-directory.js";
import { sameFingerprint } from "./approval/fingerprint-check.js";
import type { StandingCoverage, StandingScope } from "./approval/standing-approval.js";
import type { ApprovalAction, ApprovalContext, Approver, DecisionSource } from "./approver.js";
import { describeThrown } from "./describe-thrown.js";
import { isRefusalCode, type RefusalCode } from "./refusal-code.js";

/** What the rules of the agent's `approvalPolicy` would have decided, in shadow mode. */
export interface ShadowVerdict {
  decision: "allow" | "deny" | "ask";
  /** The rule that would have decided; absent when none matched. */
  rule?: string;
}

/** The gate let the call run, once. */
export interface ApprovedRecord extends DecisionSource {
  outcome: "approved";
  fingerprint: string;
  /** The approval this record spends when its call starts; absent when a policy rule allowed the call. */
  approvalId?: string;
  interactionId?: string;
  approvedBy?: string;
  /** What the person wrote with their approval, when anything (given to the model as theirs). */
  note?: string;
  /** The person changed the call: the arguments they approved, which ran instead of the model's. */
  edited?: { arguments: unknown };
  /** The `approvalPolicy` rule that allowed the call without asking anyone. */
  rule?: string;
  /** Shadow mode: what the policy's rules would have decided. */
  policy?: ShadowVerdict;
  /** The person also approved the next calls like this one, within this scope (a standing approval). */
  standing?: StandingScope;
  /** No one was asked: the standing approval given in an earlier interaction of the run covered the call. */
  coveredBy?: StandingCoverage;
  /** The approver links that each approved, when the action needed several. */
  approvers?: string[];
  /**
   * With an `approverDirectory`, when the action needed several approvers:
   * each identity that approved, as its channel recognised it (the
   * messaging link when the answer named none).
   */
  approverIdentities?: ApproverIdentity[];
  /**
   * With an `approverDirectory`: each person who approved, by directory id
   * and the channel evidence that recognised them (two answers of one
   * person name them once).
   */
  people?: RecognisedApprover[];
}

/** The call does not run. `reason` is told to the model. */
export interface RefusedRecord extends DecisionSource {
  outcome: "refused";
  fingerprint: string;
  /**
   * `denied` when a human said no; otherwise why no approval was obtained
   * or why it cannot be used: `no_approver`, `approver_error`,
   * `invalid_decision`, `fingerprint_mismatch`, `pending_not_supported`,
   * `aborted`, `already_used` (the approval was spent by another run or
   * call, or by a later copy of this run's state),
   * `not_fingerprintable` (arguments JSON cannot hold), `invalid_edit` (the
   * person's change to the arguments is not valid for the tool), `policy_denied` (a
   * rule of the agent's `approvalPolicy`, named in `rule`), or the approver's
   * own (`expired`, `timeout`, ...). Every code: {@link RefusalCode}.
   */
  code: RefusalCode;
  reason: string;
  /** What the person wrote with their answer, when anything (shown to people as theirs). */
  note?: string;
  /** The approval asked about, when the gate put the action to an approver. */
  approvalId?: string;
  interactionId?: string;
  /** The `approvalPolicy` rule that refused the call (code `policy_denied`). */
  rule?: string;
  /** Shadow mode: what the policy's rules would have decided. */
  policy?: ShadowVerdict;
  /**
   * With an `approverDirectory`: each person the directory recognised among
   * those who answered (the one who denied, or those whose answers were
   * refused: `approver_not_allowed`, `self_approval`, `not_enough_approvers`).
   */
  people?: RecognisedApprover[];
}

/** Nobody answered before the question expired: the call does not run, and it was not refused. */
export interface ExpiredRecord extends DecisionSource {
  outcome: "expired";
  fingerprint: string;
  /** What happened, told to the model. */
  reason: string;
  approvalId?: string;
  interactionId?: string;
  /** Shadow mode: what the policy's rules would have decided. */
  policy?: ShadowVerdict;
}

/** The question is out and the answer comes later; only when `allowPending` was set. */
export interface PendingRecord {
  outcome: "pending";
  fingerprint: string;
  /** The approval asked about, kept in the run's state with the ticket. */
  approvalId: string;
  /** The approver's ticket for the question, kept in the run's state; only the approver reads it. */
  ticket: string;
  /** The approver's interaction holding the question, for people (never a key). */
  interactionId?: string;
  /** The standing approval the question offered, kept so a resumed run reads the answer against it. */
  standing?: StandingScope;
}

/** What the approval gate decided for one tool call. */
export type ApprovalRecord = ApprovedRecord | RefusedRecord | ExpiredRecord | PendingRecord;

/** What the gate needs to ask about the gated actions of one step. */
export interface ApprovalGateOptions {
  /** `undefined` refuses every call (fail closed). */
  approver: Approver | undefined;
  /** One or more actions, in the order the model asked for them. */
  actions: readonly ApprovalAction[];
  /** The run's signal: an abort stops the wait. */
  signal: AbortSignal;
  logger: Logger;
  /** Durable runs set this to accept a `pending` answer; otherwise it is a refusal. */
  allowPending?: boolean;
  runId?: string;
  /** The run's task, handed to the approver (`ApprovalContext.task`). */
  task?: string;
  /** Binds an interaction to its question in the run store, handed to the approver (`ApprovalContext.bindInteraction`). */
  bindInteraction?: ApprovalContext["bindInteraction"];
  /**
   * Read the answers to a question asked earlier (a resumed run) by its
   * ticket, instead of asking again. `fingerprint` is the one recorded when
   * the question was sent; it must equal the (one) action's.
   */
  check?: { ticket: string; fingerprint: string };
}

/** A refusal of `action` by the gate itself. */
export function gateRefusal(
  action: ApprovalAction,
  code: RefusalCode,
  reason: string,
  interactionId?: unknown,
): RefusedRecord {
  return {
    outcome: "refused",
    fingerprint: action.fingerprint,
    approvalId: action.approvalId,
    code,
    reason,
    ...(typeof interactionId === "string" ? { interactionId } : {}),
  };
}

/**
 * Asks the approver about the actions (or, with `check`, reads the answer
 * to a question asked earlier) and judges each answer on its own, failing
 * closed: anything but an `approved` decision carrying its action's exact
 * fingerprint is a refusal, including no approver, an approver that throws,
 * one that does not answer once per action, a malformed answer, and an
 * abort while waiting. One record per action, in order. It writes no audit
 * line and spends nothing: the agent's settling step records, logs and
 * emits each decision once it is final, and the approval is spent in the
 * start write of its call.
 */
export async function consultApprover(options: ApprovalGateOptions): Promise<ApprovalRecord[]> {
  const { approver, actions, signal, check } = options;
  const refuseAll = (code: RefusalCode, reason: string) =>
    actions.map((action) => gateRefusal(action, code, reason));
  if (!approver) {
    return refuseAll(
      "no_approver",
      "no approver is configured, so calls that need approval are refused",
    );
  }
  if (signal.aborted) return refuseAll("aborted", "the run was aborted before approval was asked");
  if (check && !actions.every((action) => sameFingerprint(check.fingerprint, action.fingerprint))) {
    return refuseAll(
      "fingerprint_mismatch",
      "the approval was asked for other arguments than this call now has (fingerprint mismatch)",
    );
  }
  const context = {
    signal,
    logger: options.logger,
    allowPending: options.allowPending === true,
    ...(options.runId !== undefined ? { runId: options.runId } : {}),
    ...(options.task !== undefined ? { task: options.task } : {}),
    ...(options.bindInteraction !== undefined ? { bindInteraction: options.bindInteraction } : {}),
  };
  let ticket = check?.ticket;
  let decisions: unknown;
  try {
    ticket ??= await abortable(approver.ask(actions, context), signal);
    if (typeof ticket !== "string") {
      return refuseAll(
        "invalid_decision",
        "the approver's ask gave no ticket to read the answers by",
      );
    }
    decisions = await abortable(
      approver.read(ticket, actions, context) as Promise<unknown>,
      signal,
    );
  } catch (error) {
    if (signal.aborted)
      return refuseAll("aborted", "the run was aborted while waiting for approval");
    return refuseAll("approver_error", `the approver failed: ${redactText(describeThrown(error))}`);
  }
  if (signal.aborted) return refuseAll("aborted", "the run was aborted while waiting for approval");
  if (!Array.isArray(decisions) || decisions.length !== actions.length) {
    return refuseAll(
      "invalid_decision",
      `the approver was asked about ${actions.length} action(s) but did not give one answer for each`,
    );
  }
  const read = ticket;
  return actions.map((action, index) =>
    judgeDecision(decisions[index], { action, allowPending: options.allowPending, ticket: read }),
  );
}

/**
 * Reads an approver's answer about one action, failing closed: only an
 * `approved` decision with the action's exact fingerprint (or an edit bound
 * to its own) approves; a `pending` one only when `allowPending`, kept
 * with the question's ticket.
 */
export function judgeDecision(
  decision: unknown,
  options: { action: ApprovalAction; allowPending?: boolean | undefined; ticket: string },
): ApprovalRecord {
  const { action } = options;
  const refuse = (code: RefusalCode, reason: string, interactionId?: unknown): RefusedRecord =>
    gateRefusal(action, code, reason, interactionId);
  if (typeof decision !== "object" || decision === null) {
    return refuse("invalid_decision", "the approver gave no usable answer");
  }
  const { outcome, fingerprint, interactionId, answeredBy } = decision as Record<string, unknown>;
  const source = decisionSource(decision as Record<string, unknown>);
  // With a directory, who answered decides whether the answer counts: a form the gate cannot read counts for nothing.
  if (action.whoMayApprove && answeredBy !== undefined && !isApproverIdentity(answeredBy)) {
    return refuse(
      "invalid_decision",
      "the approver named who answered (answeredBy) in a form the gate cannot read: it must be { channel, id }",
      interactionId,
    );
  }

  if (outcome === "approved" && "editedArguments" in (decision as object)) {
    return approvedEdit(decision as Record<string, unknown>, action, source, refuse);
  }
  if (outcome === "approved") {
    if (!sameFingerprint(fingerprint, action.fingerprint)) {
      return refuse(
        "fingerprint_mismatch",
        "the approval given was for a different action (fingerprint mismatch)",
        interactionId,
      );
    }
    const extent = approvalExtent(decision as Record<string, unknown>, action);
    if ("refused" in extent) return refuse(extent.code, extent.refused, interactionId);
    const { approvedBy, note } = decision as { approvedBy?: unknown; note?: unknown };
    return {
      outcome: "approved",
      ...source,
      fingerprint: action.fingerprint,
      approvalId: action.approvalId,
      ...(typeof interactionId === "string" ? { interactionId } : {}),
      ...(typeof approvedBy === "string" ? { approvedBy } : {}),
      ...(typeof note === "string" && note.trim() !== "" ? { note: redactText(note) } : {}),
      ...extent.granted,
    };
  }
  if (outcome === "expired") {
    const { reason } = decision as { reason?: unknown };
    return {
      outcome: "expired",
      ...source,
      fingerprint: action.fingerprint,
      approvalId: action.approvalId,
      reason:
        typeof reason === "string" && reason.trim() !== ""
          ? redactText(reason)
          : "nobody answered before the question expired",
      ...(typeof interactionId === "string" ? { interactionId } : {}),
    };
  }
  if (outcome === "refused") {
    const { code, reason, note } = decision as { code?: unknown; reason?: unknown; note?: unknown };
    return {
      ...source,
      ...refuse(
        // A code outside the list (from an approver written in JavaScript) makes the answer unusable.
        code === undefined || code === ""
          ? "denied"
          : isRefusalCode(code)
            ? code
            : "invalid_decision",
        typeof reason === "string" && reason.trim() !== ""
          ? redactText(reason)
          : "no reason was given",
        interactionId,
      ),
      ...(typeof note === "string" && note.trim() !== "" ? { note: redactText(note) } : {}),
    };
  }
  if (outcome === "pending") {
    if (options.allowPending !== true) {
      return refuse(
        "pending_not_supported",
        "the approver answered that the approval is still pending, and this run cannot wait for a later answer",
        interactionId,
      );
    }
    return {
      outcome: "pending",
      fingerprint: action.fingerprint,
      approvalId: action.approvalId,
      ticket: options.ticket,
      ...(typeof interactionId === "string" ? { interactionId } : {}),
      ...(action.standing ? { standing: structuredClone(action.standing) } : {}),
    };
  }
  return refuse("invalid_decision", "the approver gave no usable answer");
}

/**
 * What an approval covers beyond the one action: a standing approval only
 * for the exact scope the question offered, and an action that needs
 * several approvers only with that many distinct approver links. Anything
 * else is a refusal.
 */
function approvalExtent(
  decision: Record<string, unknown>,
  action: ApprovalAction,
):
  | {
      granted: {
        standing?: StandingScope;
        approvers?: string[];
        approverIdentities?: ApproverIdentity[];
      };
    }
  | { refused: string; code: RefusalCode } {
  const granted: {
    standing?: StandingScope;
    approvers?: string[];
    approverIdentities?: ApproverIdentity[];
  } = {};
  const { standing, approvers } = decision;
  if (standing !== undefined) {
    const given = (standing as { fingerprint?: unknown } | null)?.fingerprint;
    if (!action.standing || !sameFingerprint(given, action.standing.fingerprint)) {
      return {
        code: "fingerprint_mismatch",
        refused: action.standing
          ? "the standing approval given was for another scope than the question offered (fingerprint mismatch)"
          : "the approver answered with a standing approval the question did not offer",
      };
    }
    granted.standing = structuredClone(action.standing);
  }
  const required = action.requiredApprovers ?? 1;
  if (required > 1 && action.whoMayApprove) {
    // With a directory people are told apart, not links: the gate recognises each identity next.
    const identities = approverIdentitiesOf(approvers);
    if (identities === undefined) {
      return {
        code: "invalid_decision",
        refused:
          "the approver named who approved (answeredBy) in a form the gate cannot read: it must be { channel, id }",
      };
    }
    if (identities.length < required) {
      return {
        code: "not_enough_approvers",
        refused: `this action needs ${required} different people to approve it, and ${identities.length === 0 ? "no approver was named" : `only ${identities.length} different identities did`}`,
      };
    }
    const links = identities
      .filter((identity) => identity.channel === "messaging")
      .map((identity) => identity.id);
    return {
      granted: {
        ...granted,
        ...(links.length > 0 ? { approvers: links } : {}),
        approverIdentities: identities,
      },
    };
  }
  const links = new Set(
    (Array.isArray(approvers) ? approvers : [])
      .map((approver) => (approver as { approverLink?: unknown } | null)?.approverLink)
      .filter((link): link is string => typeof link === "string" && link !== ""),
  );
  if (required > 1) {
    if (links.size < required) {
      return {
        code: "not_enough_approvers",
        refused: `this action needs ${required} different approvers to approve it, and ${links.size === 0 ? "no approver link was named" : `only ${links.size} did`}`,
      };
    }
    granted.approvers = [...links];
  }
  return { granted };
}

/**
 * Each distinct identity among the approvers an answer names (`answeredBy`,
 * else the messaging link), in order; `undefined` when one names who
 * answered in a form that cannot be read.
 */
function approverIdentitiesOf(approvers: unknown): ApproverIdentity[] | undefined {
  const identities = new Map<string, ApproverIdentity>();
  for (const approver of Array.isArray(approvers) ? approvers : []) {
    const { answeredBy, approverLink } = (approver ?? {}) as Record<string, unknown>;
    if (answeredBy !== undefined && !isApproverIdentity(answeredBy)) return undefined;
    const identity = answeringIdentity(
      isApproverIdentity(answeredBy) ? answeredBy : undefined,
      typeof approverLink === "string" ? approverLink : undefined,
    );
    if (identity) identities.set(`${identity.channel}\u0000${identity.id}`, identity);
  }
  return [...identities.values()];
}

/** Where an answer came from, for the audit trail: plain strings only. */
function decisionSource(decision: Record<string, unknown>): DecisionSource {
  const { approverLink, questionDigest, answeredBy } = decision;
  return {
    ...(typeof approverLink === "string" ? { approverLink } : {}),
    ...(typeof questionDigest === "string" ? { questionDigest } : {}),
    ...(isApproverIdentity(answeredBy)
      ? { answeredBy: { channel: answeredBy.channel, id: answeredBy.id } }
      : {}),
  };
}

/**
 * An approval of an edited action: its fingerprint must be that of the tool,
 * the edited arguments and the action's target, exactly; the agent then
 * checks the arguments with the tool's schema before anything runs.
 */
function approvedEdit(
  decision: Record<string, unknown>,
  action: ApprovalAction,
  source: DecisionSource,
  refuse: (code: RefusalCode, reason: string, interactionId?: unknown) => RefusedRecord,
): ApprovedRecord | RefusedRecord {
  const { fingerprint, interactionId, editedArguments, approvedBy, note } = decision;
  if (action.editable !== true) {
    return refuse(
      "invalid_edit",
      "the person changed the action, and the rule that asked about it does not allow changes (its `edits`), so nothing was run",
      interactionId,
    );
  }
  let expected: string;
  try {
    expected = actionFingerprint(action.toolName, editedArguments, action.target);
  } catch (error) {
    return refuse(
      "invalid_edit",
      `the person's edit cannot be bound to an approval (${redactText(describeThrown(error))}), so nothing was run`,
      interactionId,
    );
  }
  if (!sameFingerprint(fingerprint, expected)) {
    return refuse(
      "fingerprint_mismatch",
      "the approval given was for other arguments than the edit it carries (fingerprint mismatch)",
      interactionId,
    );
  }
  // An edited action is its own action: no standing approval comes with it.
  const { standing: _standing, ...once } = decision;
  const extent = approvalExtent(once, action);
  if ("refused" in extent) return refuse(extent.code, extent.refused, interactionId);
  return {
    ...extent.granted,
    outcome: "approved",
    ...source,
    fingerprint: expected,
    approvalId: action.approvalId,
    edited: { arguments: structuredClone(editedArguments) },
    ...(typeof interactionId === "string" ? { interactionId } : {}),
    ...(typeof approvedBy === "string" ? { approvedBy } : {}),
    ...(typeof note === "string" && note.trim() !== "" ? { note: redactText(note) } : {}),
  };
}
