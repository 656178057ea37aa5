import { ConfigurationError } from "../../errors/configuration-error.js";
import { missingMethods } from "../../internal/missing-methods.js";
import type { RunState } from "./run-state.js";

/** Options of {@link RunQueue.claim} and {@link RunQueue.claimNext}. */
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

/** Options of {@link RunQueue.claimDue}. */
export interface RunClaimDueOptions extends RunClaimOptions {
  /**
   * The most runs to claim (a whole number from 1 to 1000): a worker's free
   * slots. With `checksPerSecond`, runs waiting for answers count against
   * the budget one check each, and only as many are taken as it has room for.
   */
  max: number;
}

/** The most runs one {@link RunQueue.claimDue} may ask for. */
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
   * by {@link RunQueue.schedule}. A release without it ends the run's
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

/** When a run is next due, and how the attempts at it went: {@link RunQueue.schedule}. */
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
  /**
   * When the claim expires unless renewed, by this process's clock, never
   * later than the store's lease: the agent stops acting on the run then
   * (a request in flight is aborted) unless a renewal moved it.
   */
  readonly expiresAt: Date;
  /**
   * How long ago, by the store's clock, the last process that held the run
   * before this claim stopped acting on it: its lease ran out, or it was
   * taken over (then when its lease would have run out: negative while it
   * could still act), or it released the run after writing to it.
   * A call that process had started is reconciled only once this exceeds
   * the tool's timeout. Absent when no process held the run before, or
   * the store does not know (the call is then reconciled at once).
   */
  readonly sincePreviousHolderMs?: number | undefined;
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
   * (reason `claim`) when it was lost: taken over or released (and, in a
   * store that times leases by the clock alone, as `FileRunStore`, expired).
   */
  renew(): Promise<void>;
  /** Ends the claim (a lost claim is left as it is); see {@link RunReleaseOptions}. */
  release(options?: RunReleaseOptions): Promise<void>;
}

/**
 * Which runs are due and who works on each: claims and their leases, the
 * schedule of the checks of suspended runs and their budget, `wake` and the
 * wait for due runs. `RunWorker` hands runs out with it; the agent claims
 * each run it works on, so two processes never run the same one at once.
 * `FileRunStore` and `PostgresRunStore` are both a run store and a run
 * queue; an engine that schedules runs itself (DBOS) takes the queue's
 * place. `runQueueConformance()` in `switchyard-agents/testing` is the
 * suite of this contract, to run against a queue of your own.
 *
 * A claim fences the saves of its run: a store that is also the queue
 * refuses a save under a claim that is no longer current
 * (`RunSaveOptions.claim`).
 */
export interface RunQueue {
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
   */
  claimDue(options: RunClaimDueOptions): Promise<RunClaim[]>;
  /**
   * When the run is next due and how the attempts at it went (failures in a
   * row, the last error): what `switchyard runs show` prints. Resolves
   * `undefined` when there is no such run.
   */
  schedule(runId: string): Promise<RunSchedule | undefined>;
  /**
   * Makes a suspended run due now, ahead of the runs due earlier (with a
   * budget of checks, it is the next one handed out), and tells idle workers waiting in
   * {@link RunQueue.waitForDue}: an application that learns of an answer
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

/** Options of {@link RunQueue.waitForDue}. */
export interface RunDueWaitOptions {
  /** The longest wait, in milliseconds. */
  timeoutMs: number;
  /** Ends the wait early (a worker stopping). */
  signal?: AbortSignal | undefined;
}

/**
 * Every method of the {@link RunQueue} contract, each required: the agent
 * and `RunWorker` refuse a queue lacking one, and the conformance suite
 * checks a queue has them all.
 */
export const runQueueMethods = [
  "claim",
  "claimNext",
  "claimDue",
  "schedule",
  "wake",
  "waitForDue",
] as const satisfies ReadonlyArray<keyof RunQueue>;

/** True when `value` has every method of the {@link RunQueue} contract. */
export function isRunQueue(value: unknown): value is RunQueue {
  return (
    typeof value === "object" &&
    value !== null &&
    missingMethods(value, runQueueMethods).length === 0
  );
}

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
