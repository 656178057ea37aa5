import type {
  ApprovalAction,
  ApprovalContext,
  ApprovalDecision,
  Approver,
} from "../agent/approver.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { actionFingerprint } from "../internal/canonical-json.js";
import { readAgUiTicket, ticketExpired, writeAgUiTicket } from "./ag-ui-ticket.js";

/**
 * A person's answer to one interrupt, as the AG-UI handler checked it
 * against the run store before recording it. Never built from anything the
 * client sent that the handler did not check.
 */
export interface AgUiAnswer {
  /** `approve` lets the call run once (with `editedArguments` when given); `deny` and `cancel` refuse it. */
  decision: "approve" | "deny" | "cancel";
  /** Who answered, as the handler's `authorize` named them. */
  answeredBy: string;
  /** What the person wrote with their answer. */
  note?: string | undefined;
  /** The arguments the person approved instead of the model's (checked by the tool's schema before running). */
  editedArguments?: Record<string, unknown> | undefined;
  /** The person also approved the next calls like this one, within the scope the interrupt offered. */
  standing?: boolean | undefined;
}

/** Options of {@link AgUiApprover}. */
interface AgUiApproverOptions {
  /**
   * How long an interrupt can be answered, in milliseconds (a whole number,
   * from 1000 to a year, 31_536_000_000): each interrupt carries its `expiresAt`, an answer after
   * it is refused (`interrupt_expired`) and the call ends `expired`, as on
   * every other channel (the agent's `onApprovalExpired` says what the run
   * does next).
   * @default 86_400_000 (24 hours)
   */
  timeoutMs?: number | undefined;
}

/** The longest an interrupt can wait for its answer: a year. */
const longestTimeoutMs = 365 * 86_400_000;

/**
 * The approver behind an AG-UI handler: it never waits. Asked about an
 * action in a durable run, its answer reads `pending`, and the run suspends
 * into the run store; the handler ends the AG-UI run with an interrupt
 * named by the action's approval id (the agent's: the run's id, `.`, 128
 * random bits in base64url). When the client answers the interrupt, the handler checks the
 * answer against the stored run, records it here, and resumes the run,
 * whose `read` reads it. Outside a durable run (no run id, or
 * pending not allowed) it refuses: nobody could ever answer.
 *
 * Build the agent with the handler's approver (the factory of
 * `createAgUiHandler` receives it), or give the same instance to both.
 */
export class AgUiApprover implements Approver {
  readonly #answers = new Map<string, AgUiAnswer>();
  readonly #timeoutMs: number;

  constructor(options: AgUiApproverOptions = {}) {
    const { timeoutMs = 86_400_000 } = options;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1_000 || timeoutMs > longestTimeoutMs) {
      throw new ConfigurationError(
        `AgUiApprover: timeoutMs must be a whole number of milliseconds, from 1000 to ${longestTimeoutMs} (a year; e.g. 3_600_000 for an hour); got ${String(timeoutMs)}.`,
      );
    }
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Asks nothing yet: the handler's interrupts are the question, named by
   * the approval ids. The ticket keeps when they expire and which offered
   * an edit, so the handler refuses an answer they did not allow before
   * anything is spent.
   */
  async ask(actions: readonly ApprovalAction[]): Promise<string> {
    return writeAgUiTicket({
      expiresAt: new Date(Date.now() + this.#timeoutMs).toISOString(),
      edits: actions
        .filter((action) => action.editable === true)
        .map((action) => action.approvalId),
    });
  }

  /**
   * The answers the handler recorded for these actions, by approval id;
   * `pending` for those nobody answered yet.
   */
  async read(
    ticket: string,
    actions: readonly ApprovalAction[],
    context: ApprovalContext,
  ): Promise<ApprovalDecision[]> {
    const expired = ticketExpired(readAgUiTicket(ticket));
    return actions.map((action) => this.#answerFor(action, context, expired));
  }

  #answerFor(action: ApprovalAction, context: ApprovalContext, expired: boolean): ApprovalDecision {
    // Answers are recorded by interrupt id, which is the approval's id: read back from the run's state.
    const interactionId = action.approvalId;
    const answer = this.#answers.get(interactionId);
    if (answer === undefined && expired) {
      return {
        outcome: "expired",
        reason: `nobody answered the approval question about ${action.toolName} in the AG-UI client before it expired`,
        interactionId,
      };
    }
    if (answer === undefined) {
      if (context.allowPending !== true || context.runId === undefined) {
        return {
          outcome: "refused",
          code: "pending_not_supported",
          reason: `${action.toolName} needs a person's approval, which an AG-UI client gives only on a later request, and this run cannot wait for it (it is not durable, or its arguments hold a secret)`,
        };
      }
      return { outcome: "pending", interactionId };
    }
    const note = answer.note !== undefined ? { note: answer.note } : {};
    // The person `authorize` named, as the gate looks them up in the agent's approver directory.
    const answeredBy = { channel: "agUi", id: answer.answeredBy } as const;
    if (answer.decision !== "approve") {
      return {
        outcome: "refused",
        code: answer.decision === "deny" ? "denied" : "canceled",
        reason:
          answer.decision === "deny"
            ? `${answer.answeredBy} denied ${action.toolName} in the AG-UI client`
            : `${answer.answeredBy} dismissed the question about ${action.toolName} without answering it`,
        interactionId,
        answeredBy,
        ...note,
      };
    }
    if (answer.standing === true && action.standing === undefined) {
      return {
        outcome: "refused",
        code: "invalid_decision",
        reason: `the answer approved ${action.toolName} and the next calls like it, but the question offered no such approval`,
        interactionId,
        answeredBy,
      };
    }
    const edited = answer.editedArguments;
    return {
      outcome: "approved",
      // An edit is its own action: the approval binds to what runs.
      fingerprint:
        edited === undefined
          ? action.fingerprint
          : actionFingerprint(action.toolName, edited, action.target),
      interactionId,
      approvedBy: answer.answeredBy,
      answeredBy,
      ...note,
      ...(edited !== undefined ? { editedArguments: edited } : {}),
      ...(answer.standing === true && action.standing !== undefined
        ? { standing: { fingerprint: action.standing.fingerprint } }
        : {}),
    };
  }

  /**
   * Records checked answers for the resume about to run, or returns the
   * ids of those another request is answering at this moment (nothing is
   * then recorded): two requests never answer one interrupt at once.
   * @internal Called by the AG-UI handler only.
   */
  recordAnswers(answers: ReadonlyMap<string, AgUiAnswer>): string[] {
    const busy = [...answers.keys()].filter((id) => this.#answers.has(id));
    if (busy.length > 0) return busy;
    for (const [id, answer] of answers) this.#answers.set(id, answer);
    return [];
  }

  /**
   * Forgets answers once their resume ended: what the run did with them is
   * in the run store.
   * @internal Called by the AG-UI handler only.
   */
  forgetAnswers(interruptIds: Iterable<string>): void {
    for (const id of interruptIds) this.#answers.delete(id);
  }
}
