import type { Logger } from "pino";
import type { ActionDescription, ToolTarget } from "../tools/tool.js";
import type { ActionView } from "./approval/action-view.js";
import type { ApproverIdentity, ApproverPerson } from "./approval/approver-directory.js";
import type { StandingScope } from "./approval/standing-approval.js";
import type { InteractionBinding, InteractionBindingOutcome } from "./durable/run-store.js";
import type { RefusalCode } from "./refusal-code.js";

/** A tool call waiting at the approval gate. */
export interface ApprovalAction {
  /**
   * The agent's id of this approval, minted when the action reached the
   * gate (the run's id, `.`, 128 bits derived from the run's secret
   * random seed): unguessable, and bound by
   * the run's state to this run, call and fingerprint. The approval is
   * spent under it, once. An approver names its question by it and never
   * mints an id of its own.
   */
  approvalId: string;
  toolName: string;
  toolCallId: string;
  /**
   * The parsed, validated arguments the call would run with, as a person
   * may see them: a value equal to a secret the agent knows, and the value
   * of every secret-named property, shows as a placeholder beginning with
   * `[redacted]`; nothing else is changed. `fingerprint` binds to the real ones.
   */
  arguments: unknown;
  /**
   * `sha256:` + hex digest of the tool name, the canonical JSON of the
   * arguments and the tool's `target`. An approval binds to exactly this value.
   */
  fingerprint: string;
  description: ActionDescription;
  /**
   * The JSON Schema of the tool's arguments (its `parameters`), so an
   * approver that lets a person change the arguments can check the change
   * where it is typed. The agent checks an edit itself in any case.
   */
  parameters?: Readonly<Record<string, unknown>>;
  /**
   * Where the call acts (service, account, sandbox or production), when the
   * tool says: the real target, which an edited action's fingerprint is
   * computed with. Show a person `view.target`, where a secret is a placeholder.
   */
  target?: ToolTarget;
  /**
   * What the person is shown of this action, built once by the gate: every
   * value escaped once, secrets as placeholders. A channel only lays it out,
   * and never escapes or hides anything on its own. Every action an
   * approver is given by an agent has one; absent only on an action built
   * by hand.
   */
  view?: ActionView;
  /**
   * The question may offer a standing approval with this scope ("approve
   * this and the next actions like it in this run"): state it to the person
   * before they choose, and answer `standing: { fingerprint: scope.fingerprint }`
   * when they choose it. Absent: offer none.
   */
  standing?: StandingScope;
  /**
   * How many distinct approvers must each approve this action (a rule's
   * `required`); an approval from fewer is refused (`not_enough_approvers`).
   * @default 1
   */
  requiredApprovers?: number;
  /**
   * The rule asking lets the person change the arguments before approving
   * (a rule's `edits`): offer it, and answer `editedArguments`. Absent: an
   * edited approval is refused (`invalid_edit`).
   */
  editable?: boolean;
  /**
   * Who may answer, when the agent has an `approverDirectory`: the people
   * the asking rule allows (its roles, less the person who started the run
   * unless the rule allows self-approval), and how many of them must
   * approve. A channel that reaches people itself (messaging) asks these
   * people, by their identities on its channel; any channel shows the
   * person who is asked. The gate judges every answer against the
   * directory in any case: an answer from anyone else approves nothing.
   * Absent without a directory.
   */
  whoMayApprove?: WhoMayApprove;
}

/** Who may approve one action: {@link ApprovalAction.whoMayApprove}. */
export interface WhoMayApprove {
  /** The rule's roles; empty: anyone in the directory. */
  roles: readonly string[];
  /** How many distinct people must each approve. */
  required: number;
  /**
   * The people who may answer now, in the directory's order (absent when
   * the directory cannot list people by role).
   */
  people?: readonly ApproverPerson[];
  /** The person who started the run, when known and not allowed to approve it. */
  excluded?: string;
  /**
   * Escalation by role: when nobody decided within `afterMs`, the people
   * holding these roles are asked too (they count like the others).
   */
  escalation?: { roles: readonly string[]; afterMs: number; people?: readonly ApproverPerson[] };
}

export interface ApprovalContext {
  /** Fires when the run is aborted; a pending approval must stop waiting. */
  signal: AbortSignal;
  logger: Logger;
  /** The run asking, when it has an id (durable runs). */
  runId?: string;
  /**
   * The run's task: the user message the run answers (the last user
   * message of the conversation it was started with, so a thread's turn is
   * named by its own message, not the thread's first), cut to 200
   * characters, the agent's secrets removed: for channels that show which
   * task asks. Untrusted text: escape it where it is shown.
   */
  task?: string;
  /** When true `read` may answer `pending` instead of waiting (durable runs). */
  allowPending?: boolean;
  /**
   * Records, in the agent's run store, which question an interaction of an
   * approver link holds, once and for good (`RunStore.bindInteraction`, for
   * the run asking). An approver whose service names its questions (a
   * messaging service's interaction ids) binds each interaction it is
   * given, and takes no answer from one that `taken` says holds another
   * question: the same interaction read for another question, in any run
   * or process, approves nothing. Absent outside an agent's run.
   */
  bindInteraction?: (
    binding: Omit<InteractionBinding, "runId">,
  ) => Promise<InteractionBindingOutcome>;
}

/** Where a decision came from, for the audit trail (the approver fills in what it knows). */
export interface DecisionSource {
  /** The approver's link (e.g. the messaging subscription link id) the question went to. */
  approverLink?: string;
  /** `sha256:` + hex digest of the question's text as it was sent. */
  questionDigest?: string;
  /**
   * Who answered, as the channel recognised them (the `authorize`
   * principal, the MCP host's user, the local user); a messaging answer is
   * recognised by its `approverLink` when this is absent. The gate looks it
   * up in the agent's `approverDirectory`.
   */
  answeredBy?: ApproverIdentity;
}

/** Lets the call run once. `fingerprint` must equal the action's, or the gate refuses. */
export interface ApprovedDecision extends DecisionSource {
  outcome: "approved";
  fingerprint: string;
  interactionId?: string;
  /** Who answered, when known (free text, never a secret). */
  approvedBy?: string;
  /** What the person wrote with their approval, when anything; the model is given it as theirs. */
  note?: string;
  /**
   * The person changed the action before approving it: these arguments run
   * instead, once the tool's own schema accepts them. `fingerprint` is then
   * the fingerprint of the edited action (tool, these arguments, target).
   */
  editedArguments?: unknown;
  /**
   * The person approved this action and the next ones like it, within the
   * scope `ApprovalAction.standing` offered: its fingerprint. Any other
   * fingerprint, or one when no scope was offered, is refused. Each use is
   * an approval of its own, with its own approval id, spent once.
   */
  standing?: { fingerprint: string };
  /**
   * When the action needs several approvers: each one that approved it, by
   * link (and, with an `approverDirectory`, as recognised). Without a
   * directory links must differ; with one, people must: two answers of one
   * person count once.
   */
  approvers?: Array<{ approverLink: string; approvedBy?: string; answeredBy?: ApproverIdentity }>;
}

/**
 * The call does not run. `reason` says why, in words fit for the model and
 * for people alike (no instructions to the model: the agent adds those).
 */
export interface RefusedDecision extends DecisionSource {
  outcome: "refused";
  reason: string;
  /** What the person wrote with their answer, when they wrote anything (e.g. why they denied). */
  note?: string;
  /**
   * Short machine-readable cause: `denied`, `expired`, `timeout`, ... (every
   * code: {@link RefusalCode}). Any other is read as `invalid_decision`.
   */
  code: RefusalCode;
  interactionId?: string;
}

/**
 * Nobody answered before the question expired (the messaging service's
 * `expires_in_s`, or the approver's own wait). Not a denial: the call does
 * not run, and the agent's `onApprovalExpired` says what the run does next.
 */
export interface ExpiredDecision extends DecisionSource {
  outcome: "expired";
  /** What happened, in words fit for the model and for people alike. */
  reason: string;
  interactionId?: string;
}

/**
 * Nobody has answered yet; the answer will come later. Only from `read`
 * with `context.allowPending` (durable runs): the run suspends, keeping the
 * ticket, and reads again when it is resumed.
 */
export interface PendingDecision {
  outcome: "pending";
  interactionId?: string;
}

export type ApprovalDecision =
  | ApprovedDecision
  | RefusedDecision
  | ExpiredDecision
  | PendingDecision;

/**
 * Asks a person before destructive tool calls run, in three verbs: `ask`
 * puts a question about a list of actions (one action is a batch of one)
 * and hands back a ticket; `read` reads the answers to a ticket; `peek`
 * says, reading only, whether they are still awaited. The agent keeps the
 * ticket in the run's state and only the approver reads it; each action is
 * named by the agent's `approvalId`. Anything but an `approved` decision
 * with the action's exact fingerprint is a refusal.
 */
export interface Approver {
  /**
   * Puts the question about `actions` (the calls of one model answer that
   * need approval, in the order the model asked) to a person, and returns
   * its ticket: any string this approver can later read the answers by,
   * maybe in another process. It need not wait for the answer; an approver
   * whose channel answers as it asks (a prompt, a form) may.
   */
  ask(actions: readonly ApprovalAction[], context: ApprovalContext): Promise<string>;
  /**
   * The answers to the question `ticket` names, one decision per action,
   * in the order given: all or some of the actions asked under it (a
   * resumed run reads each of its calls), matched by `approvalId`. Waits
   * for the answer, unless `context.allowPending`: then a question nobody
   * answered yet (or whose answer cannot be read now) is `pending`.
   */
  read(
    ticket: string,
    actions: readonly ApprovalAction[],
    context: ApprovalContext,
  ): Promise<readonly ApprovalDecision[]>;
  /**
   * Says whether the answers to the approvals `approvalIds` (all or some of
   * those asked under `ticket`) are all still awaited, reading only (no
   * decision, no audit record): what a worker asks before resuming a
   * suspended run, so that a run nobody answered yet costs one read and no
   * resume. `pending: false` means it has an outcome of some
   * kind (or cannot be read as waiting); the run is then resumed and `read`
   * reads the answer, through the approval gate. Rejects when the service
   * cannot be reached: the run is checked again later. Approvers without it
   * have their suspended runs resumed at each check.
   */
  peek?(
    ticket: string,
    approvalIds: readonly string[],
    context: { signal: AbortSignal },
  ): Promise<ApprovalPeek>;
}

/** What {@link Approver.peek} found about a question asked earlier. */
export interface ApprovalPeek {
  /** True while the question is open and nobody has answered it. */
  pending: boolean;
  /** When the open question expires, when the service says: the last check waits no longer. */
  expiresAt?: Date;
}
