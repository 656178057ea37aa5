import { ConfigurationError } from "../../errors/configuration-error.js";
import type { RunStateError } from "./durable-errors.js";
import type { RunClaim } from "./run-queue.js";
import {
  type OutcomeUnknownCall,
  outcomeUnknownCallsOf,
  type PendingCallPhase,
  type RunState,
  type RunStateStatus,
} from "./run-state.js";

/** What a listing says about one run, without its conversation. */
export interface RunSummary {
  runId: string;
  status: RunStateStatus;
  createdAt: string;
  updatedAt: string;
  stepCount: number;
  /** The tool calls of the step the run stopped in (what a suspended run waits for). */
  pendingCalls: Array<{
    toolCallId: string;
    toolName: string;
    phase: PendingCallPhase;
    interactionId?: string;
  }>;
  /**
   * Calls of the run whose outcome is unknown (they had started when a
   * worker stopped, and were never run again); absent when there are none.
   * A run that ended `completed` with one did not do everything it was
   * asked for, as far as anyone knows.
   */
  outcomeUnknownCalls?: OutcomeUnknownCall[];
}

/** Which runs `list` returns, and which page of them. */
export interface RunListOptions {
  /** Only runs with this status (or one of these). @default every status */
  status?: RunStateStatus | readonly RunStateStatus[];
  /** The `nextCursor` of the page before; the listing goes on after it. @default the first page */
  after?: string | undefined;
  /** The most runs on one page (1 to 1000). @default 100 */
  limit?: number | undefined;
  /**
   * Only runs last saved longer ago than this many milliseconds, by the
   * store's own clock (a shared store's server), never the clock of the
   * process that saved the run or asks: what `runs prune` deletes.
   * @default every run
   */
  olderThanMs?: number | undefined;
  /**
   * Only runs whose id starts with this text: the runs of one family of
   * ids (an AG-UI thread's runs, `agui_<thread key>_<turn>`). A store finds
   * them without reading the others (`FileRunStore` reads only their
   * files; `PostgresRunStore` uses an index on the run id), so listing
   * them costs what they are, not what the store holds. A store written
   * before this option that ignores it lists every run: a caller that
   * needs only these checks each id itself. @default every run
   */
  runIdPrefix?: string | undefined;
}

/** Options of {@link RunStore.delete}. */
export interface RunDeleteOptions {
  /**
   * The caller's claim on the run. Without it, a run held by another
   * process's live claim is not deleted. @default none
   */
  claim?: RunClaim | undefined;
}

/** One page of runs, and the stored states that could not be read (never skipped silently). */
export interface RunList {
  /** Most recently updated first (then by run id): a keyset order, stable across pages. */
  runs: RunSummary[];
  unreadable: RunStateError[];
  /** Pass as `after` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** Options of {@link RunStore.save}. */
export interface RunSaveOptions {
  /**
   * Compare-and-set: the revision the store must hold now (`0`: no state
   * saved under this id yet). Otherwise the save is refused with
   * `RunConflictError` (reason `revision`) and nothing is written. The
   * agent always passes it. @default none: the save replaces whatever is stored
   */
  expectedRevision?: number | undefined;
  /**
   * The claim this process works on the run under. A store refuses the save
   * (`RunConflictError`, reason `claim`) once the claim is no longer the
   * run's current one (another process took the run over, or it was
   * released; a store may also refuse a claim whose lease ran out, as
   * `FileRunStore` does, while `PostgresRunStore` fences by the token
   * alone): the fencing that stops a stalled worker from writing after
   * another took over. Only a store that is also the run's queue knows its claims; a
   * store that is not ignores it (`expectedRevision` still fences the save).
   * @default none: the save is not fenced
   */
  claim?: RunClaim | undefined;
  /**
   * A call whose start `startCall` recorded, ended with this tool message:
   * the save records it as `recordFinish` does, in the same write (one
   * round trip for a shared store). Recorded even when the save itself is
   * refused: it says what happened, whoever holds the run. @default none
   */
  finishedCall?: FinishedCall | undefined;
  /**
   * The save also ends `claim`, in the same write (the run ended, so its
   * holder lets it go; a store that cannot make them one write, as
   * `FileRunStore`, releases right after the save): the claim's
   * `release()` then writes nothing. A
   * suspended run saved so is due at once, and the run's series of failed
   * attempts ends, as after `release()` without a `nextCheckAt` or an
   * `error`. Nothing is released when the save is refused.
   * @default false
   */
  release?: boolean | undefined;
}

/** A call that ended, as {@link RunSaveOptions.finishedCall} records it. */
export interface FinishedCall {
  toolCallId: string;
  /** Its tool message, redacted. */
  content: string;
}

/**
 * Where durable runs are kept between processes: their states and the
 * once-only ledger (the start record of each call that may change
 * something, its finish, the approvals spent). Which runs are due and who
 * works on each is another contract, `RunQueue`. `FileRunStore` is the
 * embedded default for one machine; `PostgresRunStore`
 * (`switchyard-agents/postgres`) is shared by workers on many machines
 * (`docs/scaling.md`); both are also a run queue. `runStoreConformance()`
 * in `switchyard-agents/testing` is the suite of this contract, to run
 * against a store of your own.
 *
 * A store saves what it is given, whole: the agent redacts states before
 * saving them, and a store must never write a half state (a reader sees the
 * previous state or the new one).
 */
export interface RunStore {
  /**
   * Creates or replaces the run's state. Rejects with `RunConflictError`
   * when `expectedRevision` or the `claim` does not hold, and with
   * `RunStoreError` when it cannot save.
   */
  save(state: RunState, options?: RunSaveOptions): Promise<void>;
  /** The run's state; rejects with `RunNotFoundError`, or `RunStateError` when unreadable. */
  load(runId: string): Promise<RunState>;
  /**
   * Summaries of the runs, one page at a time; never reads whole
   * conversations when it can avoid it. A shared store gives its own times
   * of the first and last save as `createdAt` and `updatedAt` (the clocks of
   * the machines saving runs need not agree); `load` gives the state as saved.
   */
  list(options?: RunListOptions): Promise<RunList>;
  /**
   * Removes the run and its execution records; resolves `false` when there
   * was none. Takes the run's claim first: a run held by another process's
   * live claim is left, and the call rejects with `RunNotResumableError`
   * (status `claimed`), unless `options.claim` is that claim.
   */
  delete(runId: string, options?: RunDeleteOptions): Promise<boolean>;
  /**
   * The one write that lets a call of a tool that is not read-only run:
   * saves `state` (in which the call is `started`) as `save` does, fenced by
   * `options.claim` and `options.expectedRevision`, and in the same atomic
   * write records the call's start and spends its approval. Nothing is
   * written unless all of it is. Resolves `started` (the call may run, once);
   * `already_used` when the approval was spent by another run or another
   * call, or by this call in a state this one is an older copy of;
   * `already_started` when this run holds a start record of the call, by its
   * id or by its content (`CallStart.contentKey`). Rejects with
   * `RunConflictError` when the claim or the revision does not hold (a
   * store that times leases also refuses a claim whose lease ran out by its
   * clock, taken over or not: the call would run after its holder may have
   * been replaced), and
   * with `RunStoreError` when it cannot write: the approval is then unspent,
   * and whoever holds the run next uses it. Spent approvals outlive `delete`.
   */
  startCall(state: RunState, start: CallStart, options?: RunSaveOptions): Promise<CallStartOutcome>;
  /**
   * True when an approval was spent (`startCall`) by a write that took
   * effect; reads only. A resume under a `stateKey` refuses a state waiting
   * for an answer whose approval was spent: an older copy put back.
   */
  isApprovalUsed(approvalId: string): Promise<boolean>;
  /**
   * Records the tool message of a call whose start `startCall` recorded
   * (the agent records it with the save after the call, `finishedCall`).
   */
  recordFinish(runId: string, toolCallId: string, content: string): Promise<void>;
  /**
   * Records, once and for good, which question an interaction of an
   * approver link was created for: an approver whose service names its
   * questions (a messaging service's interaction ids) binds each one it is
   * given, so that an answer read from an interaction never approves
   * another question, in any run or process. Resolves `bound` when the
   * interaction was bound to no question (it now is, to this one) or to
   * this one already; `taken` when it is bound to another question
   * (nothing is written). Atomic: of two binds of one interaction to two
   * questions at once, in any processes, exactly one is `bound`. Bindings
   * outlive `delete`, as spent approvals do. Rejects with `RunStoreError`
   * when it cannot read or write.
   */
  bindInteraction(binding: InteractionBinding): Promise<InteractionBindingOutcome>;
}

/**
 * Every method of the {@link RunStore} contract, each required: the agent
 * refuses a store lacking one, and the conformance suite checks a store
 * has them all.
 */
export const runStoreMethods = [
  "save",
  "load",
  "list",
  "delete",
  "startCall",
  "isApprovalUsed",
  "recordFinish",
  "bindInteraction",
] as const satisfies ReadonlyArray<keyof RunStore>;

/** What {@link RunStore.startCall} records besides the state. */
export interface CallStart {
  /** The call, `started` in the state saved with this record. */
  toolCallId: string;
  /** `sha256:` fingerprint of its tool, arguments and target; `""` when they cannot be fingerprinted. */
  fingerprint: string;
  /**
   * The call by its content within the run: its step, fingerprint and rank
   * among equal calls of the step. A step asked of the model again gives
   * the same calls new ids, and the same keys.
   */
  contentKey: string;
  /**
   * The id of the approval the call spends, when it needed one: the
   * agent's (`ApprovalAction.approvalId`), unguessable and never reused.
   */
  approval?: string | undefined;
}

/** What {@link RunStore.startCall} did; only `started` lets the call run. */
export type CallStartOutcome =
  | { outcome: "started" }
  | {
      /** The approval was spent before: by this run and call, or another. */
      outcome: "already_used";
      runId?: string;
      toolCallId?: string;
    }
  | {
      /** The run started this call before (by id or by content): it must not run again. */
      outcome: "already_started";
      /** The call that had started, as the store recorded it. */
      toolCallId: string;
      /** Its tool message, when the store recorded how it ended. */
      content?: string;
    };

/** An interaction and the question it holds, as {@link RunStore.bindInteraction} records it. */
export interface InteractionBinding {
  /** The approver's link the question went to (a messaging subscription link id). */
  approverLink: string;
  /** The service's id of the interaction that holds the question. */
  interactionId: string;
  /**
   * Names the question, as the approver chooses: equal for every read of
   * one question, different for any other (the messaging approver gives a
   * digest of the approval ids it asks about).
   */
  question: string;
  /** The run that asked the question. */
  runId: string;
}

/** What {@link RunStore.bindInteraction} found; only `bound` lets the interaction's answer count. */
export type InteractionBindingOutcome =
  | { outcome: "bound" }
  | {
      /** The interaction holds another question: its answer approves nothing here. */
      outcome: "taken";
      /** The run whose question it holds, when the store knows. */
      runId?: string;
    };

/**
 * Throws a ConfigurationError unless `binding` names an interaction, a
 * link, a question and a run, each a non-empty string: what every store's
 * `bindInteraction` checks first.
 */
export function checkInteractionBinding(binding: InteractionBinding): void {
  const fields = ["approverLink", "interactionId", "question", "runId"] as const;
  const wrong = fields.filter((field) => {
    const value = (binding as unknown as Partial<Record<string, unknown>> | null)?.[field];
    return typeof value !== "string" || value === "";
  });
  if (wrong.length > 0) {
    throw new ConfigurationError(
      `bindInteraction needs ${wrong.join(", ")} as non-empty strings: the approver link, the service's interaction id, the question's name and the run asking.`,
    );
  }
}

/** The summary of one state, as `list` gives it. */
export function summarizeRunState(state: RunState): RunSummary {
  const outcomeUnknownCalls = outcomeUnknownCallsOf(state.finishedCalls);
  return {
    runId: state.runId,
    status: state.status,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    stepCount: state.stepCount,
    pendingCalls: state.pendingCalls.map((call) => ({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      phase: call.phase,
      ...(call.interactionId !== undefined ? { interactionId: call.interactionId } : {}),
    })),
    ...(outcomeUnknownCalls.length > 0 ? { outcomeUnknownCalls } : {}),
  };
}
