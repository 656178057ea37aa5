import { ConfigurationError } from "../../errors/configuration-error.js";
import type { RunStateError } from "./durable-errors.js";
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
   * run's current one (it expired, or another process took the run over):
   * the fencing that stops a stalled worker from writing after another took
   * over. @default none: the save is not fenced
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

/** Options of {@link RunStore.claim} and {@link RunStore.claimNext}. */
export interface RunClaimOptions {
  /**
   * Take the run even though another process holds its claim: that process
   * is gone. Its later saves are refused. @default false
   */
  takeOver?: boolean | undefined;
  /** Who holds the claim, shown to others refused the run. @default `<host name>:<process id>` */
  owner?: string | undefined;
  /**
   * How long the claim lasts unless renewed, in milliseconds: a holder that
   * stalls or dies longer loses the run. The agent and `RunWorker` renew
   * their claims every third of it. @default 60_000
   */
  leaseMs?: number | undefined;
  /**
   * `claimNext` and `claimDue` only: the fleet's budget of approval checks per second. A
   * run waiting for answers (suspended, with a call `awaiting_approval`) is
   * handed out only while the budget has room: one check a run, refilled at
   * this rate, at most one second's worth (and at least one) saved up, kept
   * by the store for every process that shares it. Checks beyond it wait
   * their turn, oldest due first; other due runs are handed out as usual.
   * Every caller should pass the same rate. @default no budget
   */
  checksPerSecond?: number | undefined;
}

/** Options of {@link RunStore.claimDue}. */
export interface RunClaimDueOptions extends RunClaimOptions {
  /**
   * The most runs to claim (a whole number from 1 to 1000): a worker's free
   * slots. With `checksPerSecond`, runs waiting for answers count against
   * the budget one check each, and only as many are taken as it has room for.
   */
  max: number;
}

/** The most runs one {@link RunStore.claimDue} may ask for. */
export const maxClaimDue = 1000;

/** Options of {@link RunClaim.release}. */
export interface RunReleaseOptions {
  /**
   * When a suspended run is due to be checked again (its pending answers
   * read) by `claimNext`. @default now: due at once
   */
  nextCheckAt?: Date | undefined;
  /**
   * The attempt under this claim failed (the run could not be resumed, or
   * its answers read): the store counts it (`RunClaim.attempts` + 1) and
   * keeps this text (one line, no secrets) as the run's last error, shown
   * by {@link RunStore.schedule}. A release without it ends the run's
   * series of failures: the count goes back to 0 and the error is cleared.
   * @default none: the attempt went through
   */
  error?: string | undefined;
  /**
   * Without `error`: the run's count of failed attempts and its last error
   * stay as they are, instead of ending the series: nothing was tried
   * under this claim (a worker stopping let it go), or it failed for a
   * reason not the run's own (the store, or the approver's service, could
   * not be reached). @default false
   */
  keepAttempts?: boolean | undefined;
}

/** When a run is next due, and how the attempts at it went: {@link RunStore.schedule}. */
export interface RunSchedule {
  /**
   * When `claimNext` next hands the run out (a suspended run; a running
   * one whose holder's claim expires then); absent for a run that ended.
   */
  nextCheckAt?: Date;
  /** Failed attempts in a row (releases with `error`); 0 after one that went through. */
  attempts: number;
  /** The error of the last failed attempt, while `attempts` is above 0. */
  lastError?: string;
}

/**
 * A run claimed by this process: no other process works on it until it is
 * released, or until it expires unrenewed (a lease).
 */
export interface RunClaim {
  readonly runId: string;
  /** Who holds it (`RunClaimOptions.owner`). */
  readonly owner: string;
  /**
   * The fencing token: larger for each new claim of the same run. A save
   * under a claim that is no longer current is refused.
   */
  readonly token: number;
  /**
   * True when the run was taken from a holder that is gone (its claim
   * expired, or `takeOver`): a run marked `running` may then go on; calls
   * that holder had started are reported as of unknown outcome.
   */
  readonly recovered: boolean;
  /** When the claim expires unless renewed. */
  readonly expiresAt: Date;
  /**
   * The run's state as the claim found it, while nothing was saved under
   * the claim since (then `undefined`): a resume under this claim goes on
   * from it instead of loading the run again (one round trip fewer for a
   * shared store). A store may leave it out; the run is then loaded.
   */
  readonly state?: RunState | undefined;
  /**
   * Failed attempts at the run in a row before this claim (releases with
   * `error`): what a worker backs off by.
   */
  readonly attempts: number;
  /**
   * Extends the claim by its lease. Rejects with `RunConflictError`
   * (reason `claim`) when it was lost (taken over, or expired).
   */
  renew(): Promise<void>;
  /** Ends the claim (a lost claim is left as it is); see {@link RunReleaseOptions}. */
  release(options?: RunReleaseOptions): Promise<void>;
}

/**
 * Where durable runs are kept between processes. `FileRunStore` is the
 * embedded default for one machine; `PostgresRunStore`
 * (`switchyard-agents/postgres`) is shared by workers on many machines
 * (`docs/scaling.md`). `runStoreConformance()` in `switchyard-agents/testing` is
 * the suite of this contract, to run against a store of your own.
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
   * Makes this process the only one working on the run until released, so
   * two processes never resume the same run at once (the run need not be
   * saved yet). Rejects with `RunNotResumableError` (status `claimed`) when
   * another holds it, unless `takeOver` says that holder is gone.
   */
  claim(runId: string, options?: RunClaimOptions): Promise<RunClaim>;
  /**
   * Claims one run that is due: `suspended` with its check time passed, or
   * `running` under a claim that expired (its holder died). Resolves
   * `undefined` when none is. Two callers never get the same run
   * (`RunWorker` hands runs out with it).
   */
  claimNext(options?: RunClaimOptions): Promise<RunClaim | undefined>;
  /**
   * Claims up to `options.max` due runs at once, as `claimNext` claims one
   * (a shared store takes them in one statement): the due runs of either
   * kind, oldest due first; each claim carries what `claimNext`'s does (its
   * own fencing token, `recovered`, `attempts`, and the state when the
   * store gives it). With `checksPerSecond`, a call taking k runs waiting
   * for answers pays k checks, and takes only as many as the budget holds.
   * Resolves `[]` when none is due; two callers never get the same run.
   *
   * Optional: `RunWorker` fills its free slots with one call of it, and
   * calls `claimNext` once per free slot with a store that lacks it.
   */
  claimDue?(options: RunClaimDueOptions): Promise<RunClaim[]>;
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
   * `RunConflictError` when the claim or the revision does not hold, and
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
   * When the run is next due and how the attempts at it went (failures in a
   * row, the last error): what `switchyard runs show` prints. Resolves
   * `undefined` when there is no such run.
   */
  schedule(runId: string): Promise<RunSchedule | undefined>;
  /**
   * Makes a suspended run due now, ahead of the runs due earlier (with a
   * budget of checks, it is the next one handed out), and tells idle workers waiting in
   * {@link RunStore.waitForDue}: an application that learns of an answer
   * (a person clicking a link in its own UI) has the run resumed at once
   * instead of at its next check. Resolves `true` when the run is
   * suspended and now due, `false` when there is no such run or a process
   * holds it (that process sets its next check when it lets it go).
   */
  wake(runId: string): Promise<boolean>;
  /**
   * Waits until a run may have become due (a new run, a run made due by
   * `wake` or a release, as the store learns of it), at most `timeoutMs`,
   * or until `signal` fires. A store that cannot learn of them waits
   * `timeoutMs` (or up to an in-process `wake`): polling stays the fallback.
   * Resolves `notified`, `timeout` or `aborted`; never rejects for a lost
   * connection (it then waits out the time).
   */
  waitForDue(options: RunDueWaitOptions): Promise<"notified" | "timeout" | "aborted">;
}

/** Options of {@link RunStore.waitForDue}. */
export interface RunDueWaitOptions {
  /** The longest wait, in milliseconds. */
  timeoutMs: number;
  /** Ends the wait early (a worker stopping). */
  signal?: AbortSignal | undefined;
}

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

/**
 * `RunClaimOptions.checksPerSecond` checked: `undefined` (no budget) or a
 * positive finite number; anything else is a ConfigurationError.
 */
export function checkChecksPerSecond(value: unknown): number | undefined {
  const problem = checksPerSecondProblem(value, "checksPerSecond");
  if (problem) throw new ConfigurationError(problem);
  return value as number | undefined;
}

/**
 * What is wrong with a budget of approval checks given under `name`
 * (anything but `undefined` or a positive finite number), or `undefined`.
 */
export function checksPerSecondProblem(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return undefined;
  return `${name} must be a positive number of approval checks per second (e.g. 50, or 0.5 for one every 2 s); got ${JSON.stringify(value) ?? String(value)}.`;
}

/**
 * `RunClaimDueOptions.max` checked: a whole number from 1 to
 * {@link maxClaimDue}; anything else is a ConfigurationError.
 */
export function checkClaimDueMax(value: unknown): number {
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= maxClaimDue) {
    return value;
  }
  throw new ConfigurationError(
    `claimDue's max must be a whole number of runs from 1 to ${maxClaimDue} (a worker's free slots); got ${JSON.stringify(value) ?? String(value)}.`,
  );
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
