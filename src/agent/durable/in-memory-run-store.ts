import { hostname } from "node:os";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { checkLeaseMs } from "../../internal/check-lease-ms.js";
import { DueNotices } from "../../internal/due-notices.js";
import {
  RunConflictError,
  RunNotFoundError,
  RunNotResumableError,
  unsealedInSealedStore,
} from "./durable-errors.js";
import { findRunIdProblem } from "./run-id.js";
import { comesAfter, readRunListOptions, runListCursor } from "./run-list-page.js";
import {
  checkChecksPerSecond,
  checkClaimDueMax,
  type RunClaim,
  type RunClaimDueOptions,
  type RunClaimOptions,
  type RunDueWaitOptions,
  type RunQueue,
  type RunReleaseOptions,
  type RunSchedule,
} from "./run-queue.js";
import type { RunState } from "./run-state.js";
import {
  type CallStart,
  type CallStartOutcome,
  checkInteractionBinding,
  type InteractionBinding,
  type InteractionBindingOutcome,
  type RunDeleteOptions,
  type RunList,
  type RunListOptions,
  type RunSaveOptions,
  type RunStore,
  summarizeRunState,
} from "./run-store.js";

/** Who holds a run: one claim, live until `expiresAt` unless renewed. */
interface Holder {
  token: number;
  owner: string;
  expiresAt: number;
  /** The state the claim found, until a save is made under it. */
  state: RunState | undefined;
}

/** When a run is due, and its failed attempts in a row. */
interface Due {
  /** Milliseconds since the epoch; 0: since it was saved; {@link wokenAt}: ahead of every other. */
  at: number;
  attempts: number;
  lastError?: string | undefined;
}

/** The due time `wake` gives a run: ahead of every other. */
const wokenAt = -1;

/**
 * A run store and run queue in this process's memory: for tests, and for
 * an application that wants the store's promises (ids, start writes,
 * claims) within one process. It keeps the same
 * promises as `FileRunStore` (both conformance suites run on it), for as
 * long as the object lives, within one process: nothing outlives a restart.
 * It keeps every run saved until it is deleted. A saved state is kept as
 * given, not copied (the agent saves a fresh one each time): change a state
 * only through the store; `load` and a claim's `state` give copies.
 *
 * @example
 * const runStore = new InMemoryRunStore();
 * const agent = new Agent({ model, tools, approver, runStore });
 */
export class InMemoryRunStore implements RunStore, RunQueue {
  readonly #leaseMs: number;
  readonly #runs = new Map<string, { state: RunState; savedAt: number }>();
  /** The approval id to the run and call that spent it. */
  readonly #approvals = new Map<string, { runId: string; toolCallId: string }>();
  /** `[approver link, interaction id]` as JSON, to the question it holds and the run that asked it. */
  readonly #bindings = new Map<string, { question: string; runId: string }>();
  /** Each run's start records: `id\n<toolCallId>` and `content\n<contentKey>` to the call that started. */
  readonly #calls = new Map<string, Map<string, { toolCallId: string; content?: string }>>();
  readonly #holders = new Map<string, Holder>();
  readonly #due = new Map<string, Due>();
  readonly #notices = new DueNotices();
  #lastToken = 0;
  #sealed = false;
  /** The budget of approval checks: a token bucket. */
  #checks: { tokens: number; refilledAt: number } | undefined;

  /**
   * @param options.leaseMs How long a claim lasts unless renewed, when
   * `claim()` is not told. @default 60_000
   */
  constructor(options: { leaseMs?: number | undefined } = {}) {
    this.#leaseMs = checkLeaseMs(options.leaseMs ?? 60_000);
  }

  /** Keeps the state; see {@link RunStore.save}. */
  async save(state: RunState, options: RunSaveOptions = {}): Promise<void> {
    this.#write(state, options);
  }

  /** A copy of the run's state; see {@link RunStore.load}. */
  async load(runId: string): Promise<RunState> {
    const run = this.#runs.get(runId);
    if (!run) throw new RunNotFoundError(runId, "the in-memory run store");
    if (run.state.seal === undefined && this.#sealed) {
      throw unsealedInSealedStore(runId, "the in-memory run store", "loaded");
    }
    return structuredClone(run.state);
  }

  /** Summaries of the runs, most recently saved first; see {@link RunStore.list}. */
  async list(options: RunListOptions = {}): Promise<RunList> {
    const page = readRunListOptions(options);
    const savedBefore = page.olderThanMs === undefined ? undefined : Date.now() - page.olderThanMs;
    const runs = [...this.#runs.values()]
      .filter(({ state, savedAt }) => {
        if (savedBefore !== undefined && savedAt >= savedBefore) return false;
        if (page.runIdPrefix !== undefined && !state.runId.startsWith(page.runIdPrefix))
          return false;
        return !page.statuses || page.statuses.includes(state.status);
      })
      .map(({ state }) => summarizeRunState(state))
      .sort(
        (first, second) =>
          second.updatedAt.localeCompare(first.updatedAt) ||
          first.runId.localeCompare(second.runId),
      );
    const after = page.after;
    const remaining = after ? runs.filter((run) => comesAfter(run, after)) : runs;
    const shown = remaining.slice(0, page.limit);
    const last = shown.at(-1);
    return {
      runs: shown,
      unreadable: [],
      ...(remaining.length > page.limit && last ? { nextCursor: runListCursor(last) } : {}),
    };
  }

  /** Removes the run and its start records (its spent approvals stay); see {@link RunStore.delete}. */
  async delete(runId: string, options: RunDeleteOptions = {}): Promise<boolean> {
    const holder = this.#liveHolder(runId);
    if (holder && !(options.claim && this.#holds(options.claim))) {
      throw refusal(runId, holder);
    }
    const existed = this.#runs.delete(runId);
    this.#holders.delete(runId);
    this.#due.delete(runId);
    this.#calls.delete(runId);
    return existed;
  }

  /**
   * Saves the state, records the call's start and spends its approval, in
   * one step; see {@link RunStore.startCall}.
   */
  async startCall(
    state: RunState,
    start: CallStart,
    options: RunSaveOptions = {},
  ): Promise<CallStartOutcome> {
    this.#fence(state, options, "startCall");
    const { runId } = state;
    const { approval } = start;
    const approvalKey = approval;
    const spentBy = approvalKey === undefined ? undefined : this.#approvals.get(approvalKey);
    if (spentBy) return { outcome: "already_used", ...spentBy };
    let calls = this.#calls.get(runId);
    const earlier =
      calls?.get(`id\n${start.toolCallId}`) ?? calls?.get(`content\n${start.contentKey}`);
    if (earlier) return { outcome: "already_started", ...earlier };
    if (approvalKey !== undefined) {
      this.#approvals.set(approvalKey, { runId, toolCallId: start.toolCallId });
    }
    const record = { toolCallId: start.toolCallId };
    if (!calls) {
      calls = new Map();
      this.#calls.set(runId, calls);
    }
    calls.set(`id\n${start.toolCallId}`, record);
    calls.set(`content\n${start.contentKey}`, record);
    this.#keep(state, options.claim, false);
    return { outcome: "started" };
  }

  /** True when `startCall` spent the approval; see {@link RunStore.isApprovalUsed}. */
  async isApprovalUsed(approvalId: string): Promise<boolean> {
    return this.#approvals.has(approvalId);
  }

  /** Binds the interaction to its question, once; see {@link RunStore.bindInteraction}. */
  async bindInteraction(binding: InteractionBinding): Promise<InteractionBindingOutcome> {
    checkInteractionBinding(binding);
    const key = JSON.stringify([binding.approverLink, binding.interactionId]);
    const held = this.#bindings.get(key);
    if (held === undefined) {
      this.#bindings.set(key, { question: binding.question, runId: binding.runId });
      return { outcome: "bound" };
    }
    return held.question === binding.question
      ? { outcome: "bound" }
      : { outcome: "taken", runId: held.runId };
  }

  /** Keeps the tool message of a call `startCall` recorded; see {@link RunStore.recordFinish}. */
  async recordFinish(runId: string, toolCallId: string, content: string): Promise<void> {
    const record = this.#calls.get(runId)?.get(`id\n${toolCallId}`);
    if (record) record.content = content;
  }

  /**
   * Forgets the run's state, claim and schedule, but keeps its start
   * records and the approvals it spent: what an agent does with a run of its
   * own store once the run ended, so its memory holds no conversation it
   * cannot go on with, and a copy of the run's state resumed later still
   * finds each call it started (it is never run again).
   */
  forget(runId: string): void {
    this.#runs.delete(runId);
    this.#holders.delete(runId);
    this.#due.delete(runId);
  }

  /** Makes this process the run's only worker until released; see {@link RunQueue.claim}. */
  async claim(runId: string, options: RunClaimOptions = {}): Promise<RunClaim> {
    return this.#take(runId, options);
  }

  /** `claim`, in one synchronous step: nothing comes between the check and the taking. */
  #take(runId: string, options: RunClaimOptions, state?: RunState): RunClaim {
    const problem = findRunIdProblem(runId);
    if (problem) throw new ConfigurationError(`${problem}.`);
    const leaseMs = checkLeaseMs(options.leaseMs ?? this.#leaseMs);
    const live = this.#liveHolder(runId);
    if (live && options.takeOver !== true) throw refusal(runId, live);
    const previous = this.#holders.get(runId);
    const recovered = previous !== undefined || this.#runs.get(runId)?.state.status === "running";
    const holder: Holder = {
      token: ++this.#lastToken,
      owner: options.owner ?? `${hostname()}:${process.pid}`,
      expiresAt: Date.now() + leaseMs,
      state,
    };
    this.#holders.set(runId, holder);
    const store = this;
    return {
      runId,
      owner: holder.owner,
      token: holder.token,
      recovered,
      attempts: this.#due.get(runId)?.attempts ?? 0,
      // A holder replaced may act until its lease ends.
      ...(previous ? { sincePreviousHolderMs: Date.now() - previous.expiresAt } : {}),
      get expiresAt() {
        return new Date(holder.expiresAt);
      },
      get state() {
        return holder.state && structuredClone(holder.state);
      },
      async renew() {
        if (store.#holders.get(runId) !== holder || holder.expiresAt <= Date.now()) {
          throw new RunConflictError({
            operation: "renew",
            runId,
            reason: "claim",
            message: `The claim on run "${runId}" was lost: ${store.#holders.get(runId) === holder ? "it expired" : "another process took the run over"}.`,
          });
        }
        holder.expiresAt = Date.now() + leaseMs;
      },
      async release(releaseOptions: RunReleaseOptions = {}) {
        if (store.#holders.get(runId) !== holder) return;
        store.#holders.delete(runId);
        store.#schedule(runId, releaseOptions);
      },
    };
  }

  /** Claims the run due first; see {@link RunQueue.claimNext}. */
  async claimNext(options: RunClaimOptions = {}): Promise<RunClaim | undefined> {
    const [claim] = this.#claimDue(options, 1);
    return claim;
  }

  /** Claims up to `max` due runs, oldest due first; see {@link RunQueue.claimDue}. */
  async claimDue(options: RunClaimDueOptions): Promise<RunClaim[]> {
    return this.#claimDue(options, checkClaimDueMax(options?.max));
  }

  /** When the run is next due, and its failed attempts; see {@link RunQueue.schedule}. */
  async schedule(runId: string): Promise<RunSchedule | undefined> {
    const run = this.#runs.get(runId);
    if (!run) return undefined;
    const due = this.#due.get(runId) ?? { at: 0, attempts: 0 };
    const holder = this.#liveHolder(runId);
    const { status } = run.state;
    const nextCheckAt =
      status !== "suspended" && status !== "running"
        ? undefined
        : holder
          ? holder.expiresAt
          : status === "running"
            ? run.savedAt
            : Math.max(due.at, 0) || run.savedAt;
    return {
      ...(nextCheckAt !== undefined ? { nextCheckAt: new Date(nextCheckAt) } : {}),
      attempts: due.attempts,
      ...(due.attempts > 0 && due.lastError !== undefined ? { lastError: due.lastError } : {}),
    };
  }

  /** Makes a suspended run no one holds due now, ahead of every other; see {@link RunQueue.wake}. */
  async wake(runId: string): Promise<boolean> {
    if (this.#runs.get(runId)?.state.status !== "suspended" || this.#liveHolder(runId)) {
      return false;
    }
    const due = this.#due.get(runId);
    this.#due.set(runId, { at: wokenAt, attempts: due?.attempts ?? 0, lastError: due?.lastError });
    this.#notices.notify();
    return true;
  }

  /** Waits for a run made due in this store, at most `timeoutMs`; see {@link RunQueue.waitForDue}. */
  waitForDue(options: RunDueWaitOptions): Promise<"notified" | "timeout" | "aborted"> {
    return this.#notices.wait(options.timeoutMs, options.signal);
  }

  /**
   * Checks the save's fencing and writes the state; records a call's end
   * first, even when the save is refused. Synchronous: nothing comes between
   * the checks and the write.
   */
  #write(state: RunState, options: RunSaveOptions): void {
    const { finishedCall } = options;
    if (finishedCall) {
      const record = this.#calls.get(state.runId)?.get(`id\n${finishedCall.toolCallId}`);
      if (record) record.content = finishedCall.content;
    }
    this.#fence(state, options, "save");
    this.#keep(state, options.claim, options.release === true);
  }

  /** Writes a state `#fence` let through; `release`: the save ends the claim. */
  #keep(state: RunState, claim: RunClaim | undefined, release: boolean): void {
    if (state.seal !== undefined) this.#sealed = true;
    const isNew = !this.#runs.has(state.runId);
    this.#runs.set(state.runId, { state, savedAt: Date.now() });
    const holder = claim && this.#holders.get(state.runId);
    if (holder) holder.state = undefined;
    if (release && claim && holder) {
      this.#holders.delete(state.runId);
      this.#schedule(state.runId, { keepAttempts: state.status === "failed" });
    } else if (isNew && state.status === "suspended") {
      this.#notices.notify();
    }
  }

  /** Throws unless the state may be written: its id, its seal, the claim and the revision. */
  #fence(state: RunState, options: RunSaveOptions, operation: string): void {
    const { runId } = state;
    const problem = findRunIdProblem(runId);
    if (problem) throw new ConfigurationError(`${problem}.`);
    if (state.seal === undefined && this.#sealed) {
      throw unsealedInSealedStore(runId, "the in-memory run store", "saved");
    }
    if (options.claim && (options.claim.runId !== runId || !this.#holds(options.claim))) {
      throw new RunConflictError({
        operation,
        runId,
        reason: "claim",
        message: `Run "${runId}" was not saved: the claim it was worked on under (token ${options.claim.token}) is no longer its current one; another process took it over, or the claim expired.`,
      });
    }
    const stored = this.#runs.get(runId)?.state.revision ?? 0;
    if (options.expectedRevision !== undefined && options.expectedRevision !== stored) {
      throw new RunConflictError({
        operation,
        runId,
        reason: "revision",
        message: `Run "${runId}" was not saved: the store holds revision ${stored}, not ${options.expectedRevision}; another process saved it since.`,
      });
    }
  }

  /** True while `claim` is the run's current, live claim. */
  #holds(claim: RunClaim): boolean {
    return this.#liveHolder(claim.runId)?.token === claim.token;
  }

  #liveHolder(runId: string): Holder | undefined {
    const holder = this.#holders.get(runId);
    return holder && holder.expiresAt > Date.now() ? holder : undefined;
  }

  /** Records a release: when the run is due again and how its attempts went. */
  #schedule(runId: string, options: RunReleaseOptions): void {
    const due = this.#due.get(runId) ?? { at: 0, attempts: 0 };
    const at = options.nextCheckAt?.getTime() ?? Date.now();
    const attempts =
      options.error !== undefined ? due.attempts + 1 : options.keepAttempts ? due.attempts : 0;
    const lastError =
      options.error !== undefined
        ? options.error
        : options.keepAttempts
          ? due.lastError
          : undefined;
    this.#due.set(runId, { at, attempts, lastError });
    if (at <= Date.now()) this.#notices.notify();
  }

  #claimDue(options: RunClaimOptions, max: number): RunClaim[] {
    const rate = checkChecksPerSecond(options.checksPerSecond);
    const now = Date.now();
    const due: Array<{ runId: string; at: number; savedAt: number; check: boolean }> = [];
    for (const [runId, { state, savedAt }] of this.#runs) {
      if (this.#liveHolder(runId)) continue;
      if (state.status === "running") {
        due.push({ runId, at: 0, savedAt, check: false });
      } else if (state.status === "suspended") {
        const at = this.#due.get(runId)?.at ?? 0;
        const check = state.pendingCalls.some((call) => call.phase === "awaiting_approval");
        if (at <= now) due.push({ runId, at, savedAt, check });
      }
    }
    due.sort((first, second) => first.at - second.at || first.savedAt - second.savedAt);
    const claims: RunClaim[] = [];
    for (const { runId, check } of due) {
      if (claims.length >= max) break;
      if (check && rate !== undefined && !this.#takeCheck(rate, now)) continue;
      claims.push(this.#take(runId, { ...options, takeOver: false }, this.#runs.get(runId)?.state));
    }
    return claims;
  }

  /** Takes one check from the budget when it has room (refilled at `perSecond`, at most one second's worth). */
  #takeCheck(perSecond: number, now: number): boolean {
    const capacity = Math.max(1, perSecond);
    const saved = this.#checks ?? { tokens: capacity, refilledAt: now };
    const tokens = Math.min(
      capacity,
      saved.tokens + (Math.max(0, now - saved.refilledAt) / 1000) * perSecond,
    );
    if (tokens < 1) {
      this.#checks = { tokens, refilledAt: now };
      return false;
    }
    this.#checks = { tokens: tokens - 1, refilledAt: now };
    return true;
  }
}

/** The refusal of a claim another holder has, live. */
function refusal(runId: string, holder: Holder): RunNotResumableError {
  return new RunNotResumableError(
    runId,
    "claimed",
    `Run "${runId}" is being worked on by ${holder.owner}, whose claim expires at ${new Date(holder.expiresAt).toISOString()} unless renewed. Wait for it to finish (a stalled holder's claim expires on its own); if that worker is gone, resume with { takeOver: true }.`,
    { takeOver: true },
  );
}
