import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { componentLogger, type Logger } from "../../internal/logger.js";
import { missingMethods } from "../../internal/missing-methods.js";
import { redactText, secretsOf } from "../../internal/redact.js";
import type { Agent } from "../agent.js";
import { describeThrown } from "../describe-thrown.js";
import type { RunResult } from "../run-result.js";
import {
  RunNotResumableError,
  RunRolledBackError,
  RunStateError,
  RunStoreError,
} from "./durable-errors.js";
import { endRunFailed, runAttemptsExhaustedName, runRolledBackName } from "./end-run-failed.js";
import { keepClaimRenewed } from "./keep-claim-renewed.js";
import { firstRecheckAfterMs, nextRecheckAt, nextRetryAt } from "./recheck-schedule.js";
import {
  checksPerSecondProblem,
  isRunQueue,
  type RunClaim,
  type RunQueue,
  runQueueMethods,
} from "./run-queue.js";
import type { RunStateStatus } from "./run-state.js";
import { type RunStore, runStoreMethods } from "./run-store.js";

/** The statuses of runs that ended, which retention deletes once old. */
const finishedStatuses: readonly RunStateStatus[] = ["completed", "max_steps", "aborted", "failed"];

/** How one run taken by a {@link RunWorker} went. */
export interface RunWorkerOutcome {
  runId: string;
  /** True when the run was taken from a worker that died (its claim expired). */
  recovered: boolean;
  /** The resumed run's result; `suspended` when answers are still pending (it was rescheduled). */
  result?: RunResult;
  /**
   * The run was not resumed: every answer it waits for is still pending
   * (the approver's `peek` read them), so only its next check moved,
   * to this time. Its state was not touched.
   */
  stillPending?: { nextCheckAt: Date };
  /**
   * Why the run could not be resumed (or its answers read): it is tried
   * again after a backoff, or, with `gaveUp`, it ended `failed`.
   */
  error?: Error;
  /**
   * With `error`: the failed attempts at the run in a row, this one
   * included, as the store now records them. A failure that was not the
   * run's own (the store or the approver's service could not be reached)
   * does not count: the number is the one before it.
   */
  attempts?: number;
  /**
   * With `error`: this was attempt `maxAttempts`, so the worker gave up:
   * the run ended `failed` (its `error` says so, with the last error) and
   * is never taken again.
   */
  gaveUp?: boolean;
}

/** Options of {@link RunWorker}. */
export interface RunWorkerOptions {
  /**
   * The store shared by the workers (e.g. a `PostgresRunStore`). The agents
   * must use the same store, and the same queue.
   */
  runStore: RunStore;
  /**
   * The queue the workers take due runs from.
   * @default the `runStore`, when it is also a run queue (as `FileRunStore` and `PostgresRunStore` are)
   */
  runQueue?: RunQueue | undefined;
  /**
   * The agent that resumes the runs (built with the same tools, approver and
   * `runStore` as the one that started them), or a function choosing one
   * per run, for a store shared by several kinds of agent.
   */
  agent: Agent | ((runId: string) => Agent | Promise<Agent>);
  /** Runs in hand at once. @default 4 */
  concurrency?: number | undefined;
  /**
   * The longest an idle worker waits before looking for due runs again; a
   * run the store announces (`waitForDue`: PostgreSQL's `LISTEN`) is taken
   * at once, so this is the fallback. @default 1_000
   */
  pollIntervalMs?: number | undefined;
  /**
   * The longest wait between two checks of a run whose answers are still
   * pending (the cap of the schedule that starts at `firstRecheckAfterMs`
   * and doubles), and the wait after a resume that ends `suspended` again
   * when the approver cannot peek. The question's expiry bounds the wait.
   * (A failed resume is retried on a schedule of its own: see
   * `maxRetryAfterMs`.)
   * @default 30_000
   */
  recheckAfterMs?: number | undefined;
  /**
   * The longest wait before a run whose resume failed is tried again: the
   * waits start at `firstRecheckAfterMs` and double with each failure in
   * a row (less up to a quarter at random), up to this. Long by default,
   * so that a fleet deployed broken for a while (a missing service
   * address, a wrong key) does not use up the attempts of every run
   * waiting on people: with the defaults, the 25 attempts of `maxAttempts`
   * take about 12 hours. @default 3_600_000 (1 hour)
   */
  maxRetryAfterMs?: number | undefined;
  /**
   * The attempts at a run whose resume keeps failing before the worker
   * gives up on it: the `maxAttempts`-th failure in a row ends the run
   * `failed`, with the last error (a save fenced by the claim; the state
   * is kept whole, its approvals and started calls recorded), and it is
   * never taken again. A resume that goes through starts the count again.
   * Counted: what building the agent or `agent.resume()` throws (a state
   * that cannot be resumed, an agent that cannot be built), and a resume
   * whose states the store refuses (a store of sealed states, an agent
   * without the `stateKey`). Not counted: failures of the store
   * (`RunStoreError`: unreachable, a lost claim) and answers the approver's
   * service could not be read (the question is still out); those are tried
   * again after a backoff, forever, and leave the count as it was. A run
   * whose state this worker cannot read or verify (its seal) is not
   * rewritten: it stays, tried again, its attempts recorded. With the
   * default schedule (`maxRetryAfterMs`), 25 attempts take about 12 hours.
   * @default 25
   */
  maxAttempts?: number | undefined;
  /**
   * The first wait before a new question is asked about: later checks wait
   * about as long as the run has already waited (1, 2, 4, 8 ... s), less up
   * to a quarter at random, up to `recheckAfterMs`. @default 1_000
   */
  firstRecheckAfterMs?: number | undefined;
  /** The claims' lease; renewed every third of it while a run is in hand. @default 60_000 */
  leaseMs?: number | undefined;
  /**
   * The fleet's budget of approval checks per second, kept by the store
   * for every worker sharing it (`claimDue`'s `checksPerSecond`): a run
   * waiting for answers is taken only while the budget has room, the one
   * due longest ago first; the others wait their turn. Give every worker
   * the same. @default no budget
   */
  approvalChecksPerSecond?: number | undefined;
  /** Who this worker is, in the store's claims. @default `<host name>:<process id>` */
  owner?: string | undefined;
  /**
   * Retention: runs that ended (`completed`, `max_steps`, `aborted`,
   * `failed`) and were last saved longer ago than this, by the store's
   * clock, are deleted when the worker starts and every
   * `pruneIntervalMs` while it runs, a page of 100 at a time, each run by
   * its own short `delete` (no lock held across the batch). Running and
   * suspended runs are never pruned. @default undefined: nothing is pruned
   */
  pruneFinishedAfterMs?: number | undefined;
  /** How often a worker with `pruneFinishedAfterMs` prunes. @default 600_000 (10 min) */
  pruneIntervalMs?: number | undefined;
  /** Told the ids of the runs each pruning deleted (to remove records of them). */
  onRunsPruned?: ((runIds: string[]) => void | Promise<void>) | undefined;
  /** Called when a run is taken, before it is resumed (to see how soon due runs start). */
  onRunTaken?: ((taken: { runId: string; recovered: boolean }) => void) | undefined;
  /** Called after each run taken, however it went. */
  onRunSettled?: ((outcome: RunWorkerOutcome) => void) | undefined;
  /**
   * Called each time the store could not hand out runs (`claimDue` or
   * `claimNext` threw: the database is unreachable, the password wrong, ...); the
   * worker tries again after `pollIntervalMs`. Without it the error is only
   * logged. `reached` says whether the store ever answered this worker.
   */
  onStoreError?: ((error: Error, context: { reached: boolean }) => void) | undefined;
  logger?: Logger | undefined;
}

/** Options of {@link RunWorker.stop}. */
export interface RunWorkerStopOptions {
  /**
   * Do not wait for the runs in hand: release their claims at once, so
   * other workers take them now (a call in flight is then reported to the
   * model as of unknown outcome, never run again). @default false: wait for them to finish
   */
  release?: boolean | undefined;
}

/**
 * Resumes suspended runs from a shared store, as one of any number of
 * workers on any number of machines: takes due runs from the run queue
 * (`claimDue`, one statement filling its free slots), and renews its
 * claims while it works. A run whose every
 * answer is still pending, as the approver's `peek` reads it, is
 * not resumed: only its next check moves, on a wait that starts at
 * `firstRecheckAfterMs` and doubles up to `recheckAfterMs`. Any other run
 * (and every run taken over from a worker that stopped) is resumed with
 * the agent (which reads its pending answers: the answered
 * runs go on, approved calls run once; with an approver that cannot peek,
 * the pending ones are suspended again at once and rescheduled after
 * `recheckAfterMs`). A run whose resume keeps failing is tried again after
 * a growing wait, and ended `failed` at the `maxAttempts`-th failure in a
 * row. A worker that dies loses its claims when they expire; another
 * worker then takes its runs, and a call it had started is reported to the
 * model as of unknown outcome, never run again.
 *
 * @example
 * const runStore = new PostgresRunStore({ connectionString });
 * const agent = new Agent({ model, tools, approver, runStore });
 * const worker = new RunWorker({ runStore, agent, concurrency: 8 });
 * worker.start();
 * process.once("SIGTERM", () => worker.stop());
 */
export class RunWorker {
  /** Who this worker is in the store's claims. */
  readonly owner: string;
  readonly #store: RunStore;
  readonly #queue: RunQueue;
  readonly #agentFor: (runId: string) => Agent | Promise<Agent>;
  readonly #concurrency: number;
  readonly #pollIntervalMs: number;
  readonly #recheckAfterMs: number;
  readonly #maxAttempts: number;
  readonly #maxRetryAfterMs: number;
  readonly #firstRecheckAfterMs: number;
  readonly #leaseMs: number;
  readonly #checksPerSecond: number | undefined;
  readonly #onRunSettled: ((outcome: RunWorkerOutcome) => void) | undefined;
  readonly #onStoreError: RunWorkerOptions["onStoreError"];
  readonly #onRunTaken: RunWorkerOptions["onRunTaken"];
  readonly #pruneFinishedAfterMs: number | undefined;
  readonly #pruneIntervalMs: number;
  readonly #onRunsPruned: RunWorkerOptions["onRunsPruned"];
  #pruneTimer: NodeJS.Timeout | undefined;
  #pruning: Promise<unknown> = Promise.resolve();
  #reached = false;
  readonly #logger: Logger;
  readonly #inHand = new Map<string, { claim: RunClaim; done: Promise<void> }>();
  #idle = new AbortController();
  #loop: Promise<void> | undefined;
  #stopping = false;

  constructor(options: RunWorkerOptions) {
    const problems: string[] = [];
    const missing = missingMethods(options?.runStore, runStoreMethods);
    if (missing.length > 0) {
      problems.push(
        `runStore must be a RunStore (e.g. a PostgresRunStore from switchyard-agents/postgres); it lacks ${missing.map((method) => `${method}()`).join(", ")}.`,
      );
    }
    const queue = options?.runQueue ?? options?.runStore;
    if (!isRunQueue(queue)) {
      const lacking = missingMethods(queue, runQueueMethods);
      problems.push(
        options?.runQueue === undefined
          ? `A RunWorker needs a run queue to take due runs from: runStore is not one (it lacks ${lacking.map((method) => `${method}()`).join(", ")}); pass runQueue, or a store that is both (a PostgresRunStore or a FileRunStore).`
          : `runQueue must be a RunQueue; it lacks ${lacking.map((method) => `${method}()`).join(", ")}. runQueueConformance() in switchyard-agents/testing checks a queue of your own.`,
      );
    }
    const agent = options?.agent;
    if (typeof agent !== "function" && typeof agent?.resume !== "function") {
      problems.push("agent must be an Agent, or a function returning the Agent for a run id.");
    }
    const whole = (name: string, value: number | undefined, fallback: number, least: number) => {
      const chosen = value ?? fallback;
      if (!Number.isInteger(chosen) || chosen < least) {
        problems.push(`${name} must be a whole number, at least ${least}.`);
      }
      return chosen;
    };
    this.#concurrency = whole("concurrency", options?.concurrency, 4, 1);
    this.#pollIntervalMs = whole("pollIntervalMs", options?.pollIntervalMs, 1_000, 1);
    this.#recheckAfterMs = whole("recheckAfterMs", options?.recheckAfterMs, 30_000, 0);
    this.#firstRecheckAfterMs = Math.min(
      whole("firstRecheckAfterMs", options?.firstRecheckAfterMs, firstRecheckAfterMs, 0),
      this.#recheckAfterMs,
    );
    this.#maxAttempts = whole("maxAttempts", options?.maxAttempts, 25, 1);
    this.#maxRetryAfterMs = whole("maxRetryAfterMs", options?.maxRetryAfterMs, 3_600_000, 0);
    this.#leaseMs = whole("leaseMs", options?.leaseMs, 60_000, 100);
    const budget = options?.approvalChecksPerSecond;
    const budgetProblem = checksPerSecondProblem(budget, "approvalChecksPerSecond");
    if (budgetProblem) problems.push(budgetProblem);
    this.#checksPerSecond = budget;
    this.#pruneFinishedAfterMs =
      options?.pruneFinishedAfterMs === undefined
        ? undefined
        : whole("pruneFinishedAfterMs", options.pruneFinishedAfterMs, 0, 0);
    this.#pruneIntervalMs = whole("pruneIntervalMs", options?.pruneIntervalMs, 600_000, 1_000);
    if (problems.length > 0) throw new ConfigurationError(problems);
    this.#store = options.runStore;
    this.#queue = queue as RunQueue;
    this.#agentFor = typeof agent === "function" ? agent : () => agent;
    this.owner = options.owner ?? `${hostname()}:${process.pid}`;
    this.#onRunSettled = options.onRunSettled;
    this.#onStoreError = options.onStoreError;
    this.#onRunTaken = options.onRunTaken;
    this.#onRunsPruned = options.onRunsPruned;
    this.#logger = componentLogger(options.logger, "worker");
  }

  /**
   * True once the store has answered this worker (handed out a run, or
   * said none is due); false while every attempt to reach it failed.
   */
  get reachedStore(): boolean {
    return this.#reached;
  }

  /** The ids of the runs in hand. */
  get runsInHand(): string[] {
    return [...this.#inHand.keys()];
  }

  /** Starts taking due runs; resolves when the worker has stopped (see {@link RunWorker.stop}). */
  start(): Promise<void> {
    if (!this.#loop && this.#pruneFinishedAfterMs !== undefined) {
      const prune = () => {
        this.#pruning = this.pruneFinished().catch((error: unknown) => {
          this.#logger.error({ err: error }, "could not prune finished runs; trying again later");
        });
      };
      prune();
      this.#pruneTimer = setInterval(prune, this.#pruneIntervalMs);
      this.#pruneTimer.unref();
    }
    this.#loop ??= this.#takeWork();
    return this.#loop;
  }

  /**
   * Deletes the runs that ended longer ago than `pruneFinishedAfterMs`
   * (see {@link RunWorkerOptions.pruneFinishedAfterMs}); resolves with how
   * many. A run another process holds is left for a later pass.
   */
  async pruneFinished(): Promise<number> {
    const olderThanMs = this.#pruneFinishedAfterMs;
    if (olderThanMs === undefined) return 0;
    let pruned = 0;
    let after: string | undefined;
    do {
      const page = await this.#store.list({
        status: finishedStatuses,
        olderThanMs,
        limit: 100,
        ...(after ? { after } : {}),
      });
      const removed: string[] = [];
      for (const run of page.runs) {
        try {
          if (await this.#store.delete(run.runId)) removed.push(run.runId);
        } catch (error) {
          if (!(error instanceof RunNotResumableError)) throw error;
        }
      }
      pruned += removed.length;
      if (removed.length > 0) await this.#onRunsPruned?.(removed);
      after = page.nextCursor;
    } while (after !== undefined && !this.#stopping);
    return pruned;
  }

  /**
   * Stops taking runs. By default waits for the runs in hand to finish;
   * with `release`, releases their claims at once instead. Resolves when
   * no run is in hand.
   */
  async stop(options: RunWorkerStopOptions = {}): Promise<void> {
    this.#stopping = true;
    this.#idle.abort();
    clearInterval(this.#pruneTimer);
    if (options.release) {
      await Promise.all(
        [...this.#inHand.values()].map(({ claim }) =>
          claim.release({ keepAttempts: true }).catch(() => {}),
        ),
      );
      this.#inHand.clear();
    }
    await this.#loop;
    await Promise.all([...this.#inHand.values()].map(({ done }) => done));
    await this.#pruning;
  }

  async #takeWork(): Promise<void> {
    while (!this.#stopping) {
      const free = this.#concurrency - this.#inHand.size;
      if (free <= 0) {
        await Promise.race([...this.#inHand.values()].map(({ done }) => done));
        continue;
      }
      let claims: RunClaim[] = [];
      try {
        claims = await this.#claimDue(free);
        this.#reached = true;
      } catch (error) {
        this.#logger.error({ err: error }, "could not take a due run; trying again");
        try {
          this.#onStoreError?.(error as Error, { reached: this.#reached });
        } catch (thrown) {
          this.#logger.error({ err: thrown }, "onStoreError threw");
        }
      }
      if (this.#stopping) {
        await Promise.all(
          claims.map((claim) => claim.release({ keepAttempts: true }).catch(() => {})),
        );
        break;
      }
      for (const taken of claims) this.#hold(taken);
      // Fewer than asked: nothing more is due now (or the budget is spent).
      if (claims.length < free) await this.#waitForWork();
    }
  }

  /** Claims up to `max` due runs, in one call of the queue's `claimDue` (one statement for a shared store). */
  #claimDue(max: number): Promise<RunClaim[]> {
    return this.#queue.claimDue({
      owner: this.owner,
      leaseMs: this.#leaseMs,
      max,
      ...(this.#checksPerSecond !== undefined ? { checksPerSecond: this.#checksPerSecond } : {}),
    });
  }

  /** Puts a claimed run in hand and starts working on it. */
  #hold(taken: RunClaim): void {
    try {
      this.#onRunTaken?.({ runId: taken.runId, recovered: taken.recovered });
    } catch (error) {
      this.#logger.error({ err: error, runId: taken.runId }, "onRunTaken threw");
    }
    const done = this.#work(taken).finally(() => {
      if (this.#inHand.get(taken.runId)?.claim === taken) this.#inHand.delete(taken.runId);
    });
    this.#inHand.set(taken.runId, { claim: taken, done });
  }

  /**
   * Waits for the store to announce a due run (`waitForDue`: a new run, a
   * run made due by `wake` or a release), at most `pollIntervalMs`, or for
   * `stop()`. A store that cannot wait (it throws) is polled.
   */
  async #waitForWork(): Promise<void> {
    try {
      await this.#queue.waitForDue({
        timeoutMs: this.#pollIntervalMs,
        signal: this.#idle.signal,
      });
    } catch (error) {
      this.#logger.warn({ err: error }, "the store could not wait for due runs; polling");
      try {
        await sleep(this.#pollIntervalMs, undefined, { signal: this.#idle.signal });
      } catch {
        // Woken by stop().
      }
    }
  }

  async #work(claim: RunClaim): Promise<void> {
    const { runId, recovered } = claim;
    const stopRenewing = keepClaimRenewed(claim);
    let outcome: RunWorkerOutcome;
    let agent: Agent | undefined;
    try {
      agent = await this.#agentFor(runId);
      const peek = recovered ? undefined : await this.#peek(agent, claim);
      if (peek) {
        stopRenewing();
        // An answer that could not be read is no failure of the run: the
        // question is still out, so it is asked about again as if pending.
        await claim.release({
          nextCheckAt: peek.nextCheckAt,
          ...(peek.error ? { keepAttempts: true } : {}),
        });
        outcome = peek.error
          ? { runId, recovered, error: peek.error, attempts: claim.attempts ?? 0 }
          : { runId, recovered, stillPending: { nextCheckAt: peek.nextCheckAt } };
        if (peek.error) this.#logNotCounted(runId, peek.error, peek.nextCheckAt);
      } else {
        const result = await agent.resume(runId, { claim });
        const unrecorded = await this.#unrecordedEnd(runId, result);
        if (unrecorded) throw unrecorded;
        outcome = { runId, recovered, result };
        const nextCheckAt =
          result.status === "suspended" ? new Date(Date.now() + this.#recheckAfterMs) : undefined;
        stopRenewing();
        await claim.release(nextCheckAt ? { nextCheckAt } : {});
      }
    } catch (error) {
      stopRenewing();
      outcome = await this.#failed(claim, error as Error, agent);
    }
    try {
      this.#onRunSettled?.(outcome);
    } catch (error) {
      this.#logger.error({ err: error, runId }, "onRunSettled threw");
    }
  }

  /**
   * A run that could not be resumed. A failure of the store (`RunStoreError`:
   * it could not be reached, or the claim was lost) is not the run's: it is
   * tried again after a backoff and its count of attempts is not raised.
   * Any other failure counts: the store records it (attempts + 1, last
   * error) and the run is tried again after a backoff, until the
   * `maxAttempts`-th, which ends the run `failed` (a fenced save) and is
   * never tried again. An older copy of the run put back in the store
   * (`RunRolledBackError`) is ended `failed` at the first attempt: retrying
   * cannot make it the latest state.
   */
  async #failed(
    claim: RunClaim,
    thrown: Error,
    agent: Agent | undefined,
  ): Promise<RunWorkerOutcome> {
    const { runId, recovered } = claim;
    if (thrown instanceof RunNotResumableError && thrown.hint.retryAfterMs !== undefined) {
      // A call its previous holder started may still be in flight: waited
      // for, not a failure (see RunClaim.sincePreviousHolderMs).
      const nextCheckAt = new Date(Date.now() + thrown.hint.retryAfterMs);
      this.#logger.info({ runId }, `${thrown.message} (at ${nextCheckAt.toISOString()})`);
      await claim.release({ nextCheckAt, keepAttempts: true }).catch(() => {});
      return { runId, recovered, error: thrown, attempts: claim.attempts ?? 0 };
    }
    // The agent's secrets (its clients' tokens, its `secrets`) as well as the patterns.
    const secrets = secretsOf(agent);
    const error = secrets ? secrets.redactError(thrown) : thrown;
    const lastError = redactText(describeThrown(error), secrets?.values()).slice(0, 2_000);
    const counts = !(error instanceof RunStoreError);
    const attempts = counts ? (claim.attempts ?? 0) + 1 : (claim.attempts ?? 0);
    const rolledBack =
      error instanceof RunRolledBackError || error.cause instanceof RunRolledBackError;
    if (rolledBack || (counts && attempts >= this.#maxAttempts)) {
      const reason = rolledBack
        ? { name: runRolledBackName, message: `The run was not resumed: ${lastError}` }
        : {
            name: runAttemptsExhaustedName,
            message: `Gave up after ${attempts} failed attempts to resume the run; the last: ${lastError}`,
          };
      const ended = await this.#giveUp(claim, agent, reason, attempts, lastError);
      if (ended) return { runId, recovered, error, attempts, gaveUp: true };
    }
    const retrySchedule = { firstMs: this.#firstRecheckAfterMs, capMs: this.#maxRetryAfterMs };
    const nextCheckAt = nextRetryAt(retrySchedule, {
      attempts: Math.max(attempts, 1),
      nowMs: Date.now(),
    });
    if (!counts) {
      this.#logNotCounted(runId, error, nextCheckAt);
      await claim.release({ nextCheckAt, keepAttempts: true }).catch(() => {});
      return { runId, recovered, error, attempts };
    }
    this.#logger.error(
      { err: error, runId, attempts, maxAttempts: this.#maxAttempts },
      `could not resume run ${runId} (attempt ${attempts} of ${this.#maxAttempts}); it is tried again at ${nextCheckAt.toISOString()}`,
    );
    await claim.release({ nextCheckAt, error: lastError }).catch(() => {});
    return { runId, recovered, error, attempts };
  }

  /**
   * Ends the run `failed` under its claim (with the agent, which seals the
   * state when its states are sealed), then records the last attempt;
   * true when the run ended. A run whose state cannot be read or verified
   * here is not ended: it is tried again, and ended by a later attempt.
   */
  async #giveUp(
    claim: RunClaim,
    agent: Agent | undefined,
    reason: { name: string; message: string },
    attempts: number,
    lastError: string,
  ): Promise<boolean> {
    const { runId } = claim;
    try {
      if (agent) await agent.failRun(claim, reason);
      else await endRunFailed({ store: this.#store, claim, error: reason });
    } catch (error) {
      this.#logger.error(
        { err: error, runId, attempts },
        `could not end run ${runId} failed after ${attempts} failed attempts; it is tried again`,
      );
      return false;
    }
    await claim.release({ error: lastError }).catch(() => {});
    this.#logger.error(
      { runId, attempts, lastError },
      reason.name === runRolledBackName
        ? `ended run ${runId} failed at once: its stored state is an older copy put back (${lastError})`
        : `gave up on run ${runId} after ${attempts} failed attempts: it ended failed (${lastError})`,
    );
    return true;
  }

  /**
   * Why a resume that ended `failed` did not end the run: its last save was
   * refused (`RunStoreError`: the store unreachable, the claim lost, or the
   * state refused, as a store of sealed states refuses a worker without the
   * key), and the run is still `suspended` or `running` in the store. It is
   * then tried again after a backoff like a resume that threw, not made due
   * at once (which resumed it again and again). A state the store refused
   * is a failed attempt of the run's, as a seal that does not match is;
   * the rest are the store's. `undefined` when the store holds the end.
   */
  async #unrecordedEnd(runId: string, result: RunResult): Promise<Error | undefined> {
    const { error } = result;
    if (result.status !== "failed" || !(error instanceof RunStoreError)) return undefined;
    const stored = await this.#store.load(runId).then(
      (state) => state.status,
      () => undefined,
    );
    if (stored !== undefined && stored !== "suspended" && stored !== "running") return undefined;
    return error.cause instanceof RunStateError ? error.cause : error;
  }

  #logNotCounted(runId: string, error: Error, nextCheckAt: Date): void {
    this.#logger.warn(
      { err: error, runId },
      `could not resume run ${runId}, for a reason not the run's own (not counted as an attempt); it is tried again at ${nextCheckAt.toISOString()}`,
    );
  }

  /**
   * Reads the run and asks the approver whether every answer it waits for
   * is still pending (a read: nothing saved); the next check when so, or
   * when the approver could not be reached (then with its `error`), and
   * `undefined` when the run is to be resumed.
   */
  async #peek(
    agent: Agent,
    claim: RunClaim,
  ): Promise<{ nextCheckAt: Date; error?: Error } | undefined> {
    const claimed = claim.state?.runId === claim.runId ? claim.state : undefined;
    const state = claimed ?? (await this.#store.load(claim.runId));
    const waiting = { sinceMs: Date.parse(state.updatedAt), nowMs: Date.now() };
    let peek: Awaited<ReturnType<Agent["peekPendingAnswers"]>>;
    try {
      peek = await agent.peekPendingAnswers(state);
    } catch (thrown) {
      const error = secretsOf(agent)?.redactError(thrown as Error) ?? (thrown as Error);
      return { nextCheckAt: nextRecheckAt(this.#schedule(), waiting), error };
    }
    if (!peek.pending) return undefined;
    return {
      nextCheckAt: nextRecheckAt(this.#schedule(), { ...waiting, expiresAt: peek.expiresAt }),
    };
  }

  #schedule() {
    return { firstMs: this.#firstRecheckAfterMs, capMs: this.#recheckAfterMs };
  }
}
