import { createHash, randomBytes } from "node:crypto";
import {
  access,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  unlink,
  writeFile,
} from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { describeThrown } from "../agent/describe-thrown.js";
import {
  claimOfAnotherRun,
  RunConflictError,
  RunNotFoundError,
  RunNotResumableError,
  RunStateError,
  RunStoreError,
  unsealedInSealedStore,
} from "../agent/durable/durable-errors.js";
import { parseRunState, serializeRunState } from "../agent/durable/parse-run-state.js";
import { findRunIdProblem } from "../agent/durable/run-id.js";
import { comesAfter, readRunListOptions, runListCursor } from "../agent/durable/run-list-page.js";
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
} from "../agent/durable/run-queue.js";
import type { RunState } from "../agent/durable/run-state.js";
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
  type RunSummary,
  summarizeRunState,
} from "../agent/durable/run-store.js";
import { runConcurrently } from "../agent/run-concurrently.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { checkLeaseMs } from "../internal/check-lease-ms.js";
import { DueNotices } from "../internal/due-notices.js";
import { attachClaimedState, forgetClaimedState } from "./claimed-states.js";
import { claimWithLockFile, isHeldBy, isLive, readClaimHolder } from "./file-run-claim.js";
import { withLockFile } from "./with-lock-file.js";

/** Options of {@link FileRunStore}. */
export interface FileRunStoreOptions {
  /**
   * The state directory; runs go in its `runs/` folder, one `<runId>.json`
   * file each.
   * @default the `SWITCHYARD_STATE_DIR` environment variable, else `.switchyard` in the working directory
   */
  directory?: string | undefined;
  /**
   * How long a claim lasts unless renewed, when `claim()` is not told: a
   * process that stalls or dies longer than this loses its runs to others
   * (the agent and `RunWorker` renew their claims every third of it).
   * @default 60_000
   */
  leaseMs?: number | undefined;
}

/** Files read at the same time when listing. */
const listConcurrency = 16;

/**
 * The embedded run store: one JSON file per run under a local directory.
 * Each save writes a temporary file, flushes it to disk and renames it over
 * the old one, so a crash leaves the previous state or the new one, never a
 * torn file. A run being worked on is claimed with a `<runId>.lock` file, so
 * two processes sharing the directory never resume the same run at once.
 * Each approval that let a call run leaves a marker in `used-approvals/`,
 * kept when runs are deleted, so no approval runs its call twice; each
 * started call an execution record in `executions/<runId>/`, created
 * exclusively.
 *
 * Compare-and-set and fencing checks are made under a short `<runId>.saving`
 * lock file, so they hold between processes on one machine.
 *
 * Claims are leases, as in `PostgresRunStore`: a claim lapses after
 * `leaseMs` unless renewed, so a process that stalls or dies loses its runs
 * to the next that claims them (`claimNext` recovers a `running` run whose
 * claim lapsed), and its later saves are refused.
 *
 * What it cannot guarantee, where `PostgresRunStore` does: leases are
 * timed by each process's own clock (one machine: one clock), fencing
 * tokens come from it too (a claim taken after a release, by another
 * process, is larger only as far as the clocks agree; saves are fenced by
 * the lock file's claim, its token and its id, so a released claim never
 * passes for the next one), a holder
 * fenced out learns it only at its next save or renewal, a save with
 * `release` is the save and then the release (a process dying between
 * them leaves its claim to lapse with its lease), and exclusive
 * creates and renames on a network file system are only as atomic as its
 * protocol.
 * Listing and `claimNext` read every state file (fine for thousands of
 * runs, not millions). Made for one machine; `docs/scaling.md` describes
 * running workers on many.
 *
 * @example
 * const store = new FileRunStore(); // $SWITCHYARD_STATE_DIR or ./.switchyard
 * const { runs } = await store.list({ status: "suspended" });
 */
export class FileRunStore implements RunStore, RunQueue {
  /** The absolute state directory. */
  readonly directory: string;
  readonly #runsDirectory: string;
  /** The budget of approval checks, shared with every process on the directory. */
  readonly #checkBudget: CheckBudgetFile;
  readonly #usedApprovalsDirectory: string;
  readonly #leaseMs: number;
  readonly #sealedFile: string;
  /** Seen the `sealed` file: it stays for good. */
  #knownSealed = false;

  constructor(options: FileRunStoreOptions = {}) {
    this.#leaseMs = checkLeaseMs(options?.leaseMs ?? 60_000);
    const given = options?.directory;
    if (given !== undefined && (typeof given !== "string" || given.trim() === "")) {
      throw new ConfigurationError(
        "FileRunStore directory must be a non-empty path; omit it to use SWITCHYARD_STATE_DIR or ./.switchyard.",
      );
    }
    const fromEnvironment = process.env.SWITCHYARD_STATE_DIR;
    this.directory = resolve(
      given ??
        (fromEnvironment !== undefined && fromEnvironment.trim() !== ""
          ? fromEnvironment
          : join(process.cwd(), ".switchyard")),
    );
    this.#runsDirectory = join(this.directory, "runs");
    this.#checkBudget = new CheckBudgetFile(this.directory);
    this.#usedApprovalsDirectory = join(this.directory, "used-approvals");
    this.#sealedFile = join(this.directory, "sealed");
  }

  /** The file holding a run's state. Throws a ConfigurationError for an id that is not path-safe. */
  pathOf(runId: string): string {
    const problem = findRunIdProblem(runId);
    if (problem) throw new ConfigurationError(`${capitalize(problem)}.`);
    return join(this.#runsDirectory, `${runId}.json`);
  }

  async save(state: RunState, options: RunSaveOptions = {}): Promise<void> {
    const checked = parseRunState(state, "the state to save");
    const file = this.pathOf(checked.runId);
    if (options.claim && options.claim.runId !== checked.runId) {
      throw claimOfAnotherRun("save", checked.runId, options.claim);
    }
    forgetClaimedState(options.claim);
    await this.#keepSealed(checked);
    const { finishedCall } = options;
    if (finishedCall) {
      await this.recordFinish(checked.runId, finishedCall.toolCallId, finishedCall.content);
    }
    if (options.expectedRevision === undefined && !options.claim) {
      return this.#write(checked, file);
    }
    await mkdir(this.#runsDirectory, { recursive: true, mode: 0o700 }).catch(() => {});
    const saving = `${file.slice(0, -".json".length)}.saving`;
    await withLockFile(saving, { operation: "save", runId: checked.runId }, async () => {
      await this.#checkSave(checked.runId, options);
      await this.#write(checked, file);
    });
    // After the save's lock: releasing takes it too.
    if (options.release) await options.claim?.release();
  }

  async #write(checked: RunState, file: string): Promise<void> {
    const temporary = join(
      this.#runsDirectory,
      `.${checked.runId}.${randomBytes(6).toString("hex")}.tmp`,
    );
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      await mkdir(this.#runsDirectory, { recursive: true, mode: 0o700 });
      handle = await open(temporary, "wx", 0o600);
      await handle.writeFile(serializeRunState(checked), "utf8");
      await handle.sync();
      await handle.close();
      handle = undefined;
      await rename(temporary, file);
      await syncDirectory(this.#runsDirectory);
      // The revision this store last saved: a sealed copy older than it, put
      // back in place of the file, is refused by load (its seal is genuine).
      if (checked.seal !== undefined) {
        await writeFile(this.#revisionFileOf(checked.runId), `${checked.revision}\n`, {
          mode: 0o600,
        });
      }
    } catch (error) {
      await handle?.close().catch(() => {});
      await unlink(temporary).catch(() => {});
      throw new RunStoreError(
        {
          operation: "save",
          runId: checked.runId,
          message: `Could not save run "${checked.runId}" to ${file}: ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
  }

  /**
   * Refuses a save whose claim is not the lock file's, or whose expected
   * revision is not the stored one; resolves with the stored state.
   */
  async #checkSave(runId: string, options: RunSaveOptions): Promise<RunState | undefined> {
    const { claim, expectedRevision } = options;
    if (claim && claim.runId !== runId) throw claimOfAnotherRun("save", runId, claim);
    if (claim) {
      const holder = await readClaimHolder(this.#lockFileOf(runId));
      if (!isHeldBy(holder, claim) || !isLive(holder)) {
        const why = !holder
          ? "it was released"
          : !isHeldBy(holder, claim)
            ? `${holder.owner} took it over`
            : "it expired unrenewed";
        throw new RunConflictError({
          operation: "save",
          runId,
          reason: "claim",
          message: `Run "${runId}" was not saved: this process's claim on it is no longer current (${why}). Nothing was written; the run stops here.`,
        });
      }
    }
    let state: RunState | undefined;
    try {
      state = await this.load(runId);
    } catch (error) {
      if (!(error instanceof RunNotFoundError)) throw error;
    }
    const stored = state?.revision ?? 0;
    if (expectedRevision !== undefined && stored !== expectedRevision) {
      throw new RunConflictError({
        operation: "save",
        runId,
        reason: "revision",
        message: `Run "${runId}" was not saved: the store holds revision ${stored}, not ${expectedRevision}; another process saved it since this one read it. Nothing was written; the run stops here.`,
      });
    }
    return state;
  }

  async load(runId: string): Promise<RunState> {
    const file = this.pathOf(runId);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if (errorCode(error) === "ENOENT") {
        throw new RunNotFoundError(runId, `the run store at ${this.directory}`);
      }
      throw new RunStoreError(
        { operation: "load", runId, message: `Could not read ${file}: ${describeThrown(error)}` },
        { cause: error },
      );
    }
    const state = parseRunState(text, file);
    if (state.runId !== runId) {
      throw new RunStateError(
        file,
        `it holds run "${state.runId}", not "${runId}"; the file was renamed or copied by hand`,
      );
    }
    if (state.seal === undefined && (await this.#isSealed())) {
      throw unsealedInSealedStore(runId, `the run store at ${this.directory}`, "loaded");
    }
    if (state.seal !== undefined) {
      const saved = Number.parseInt(
        await readFile(this.#revisionFileOf(runId), "utf8").catch(() => "0"),
        10,
      );
      if (saved > state.revision) {
        throw new RunStateError(
          file,
          `it is revision ${state.revision}, older than revision ${saved} this store saved last: an older copy of the run was put back in place of the file; it is not resumed`,
        );
      }
    }
    return state;
  }

  /**
   * The store remembers, in its `sealed` file, that it was given sealed
   * states: from then on it refuses an unsealed one (a process without the
   * key must not write one, nor resume one slipped in by hand).
   */
  async #keepSealed(checked: RunState): Promise<void> {
    if (checked.seal === undefined) {
      if (await this.#isSealed()) {
        throw unsealedInSealedStore(checked.runId, `the run store at ${this.directory}`, "saved");
      }
      return;
    }
    if (this.#knownSealed) return;
    try {
      await mkdir(this.directory, { recursive: true, mode: 0o700 });
      await writeFile(this.#sealedFile, "The states of this store are sealed.\n", { mode: 0o600 });
    } catch (error) {
      throw new RunStoreError(
        {
          operation: "save",
          runId: checked.runId,
          message: `Could not record that the store's states are sealed (${this.#sealedFile}): ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
    this.#knownSealed = true;
  }

  async #isSealed(): Promise<boolean> {
    if (this.#knownSealed) return true;
    try {
      await access(this.#sealedFile);
      this.#knownSealed = true;
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Reads every state file (with `runIdPrefix`, only the files of those
   * runs: a file is named by its run's id), then returns the page asked
   * for; see {@link RunStore.list}.
   */
  async list(options: RunListOptions = {}): Promise<RunList> {
    const page = readRunListOptions(options);
    const { runs, unreadable } = await this.#readAll(
      page.statuses,
      page.olderThanMs,
      page.runIdPrefix,
    );
    const after = page.after;
    const remaining = after ? runs.filter((run) => comesAfter(run, after)) : runs;
    const shown = remaining.slice(0, page.limit);
    const last = shown.at(-1);
    return {
      runs: shown,
      unreadable: after ? [] : unreadable,
      ...(remaining.length > page.limit && last ? { nextCursor: runListCursor(last) } : {}),
    };
  }

  async #readAll(
    wanted: readonly string[] | undefined,
    olderThanMs?: number,
    runIdPrefix = "",
  ): Promise<Omit<RunList, "nextCursor">> {
    const savedBefore = olderThanMs === undefined ? undefined : Date.now() - olderThanMs;
    let names: string[];
    try {
      names = await readdir(this.#runsDirectory);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return { runs: [], unreadable: [] };
      throw new RunStoreError(
        {
          operation: "list",
          message: `Could not list ${this.#runsDirectory}: ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
    const runIds = names
      .filter(
        (name) => name.endsWith(".json") && !name.startsWith(".") && name.startsWith(runIdPrefix),
      )
      .map((name) => name.slice(0, -".json".length));
    const runs: RunSummary[] = [];
    const unreadable: RunStateError[] = [];
    await runConcurrently(runIds, listConcurrency, async (runId) => {
      try {
        // The file's own time says when it was last saved, whatever the state says.
        if (savedBefore !== undefined) {
          const { mtimeMs } = await stat(join(this.#runsDirectory, `${runId}.json`));
          if (mtimeMs >= savedBefore) return;
        }
        const state = await this.load(runId);
        if (!wanted || wanted.includes(state.status)) runs.push(summarizeRunState(state));
      } catch (error) {
        unreadable.push(
          error instanceof RunStateError
            ? error
            : new RunStateError(join(this.#runsDirectory, `${runId}.json`), describeThrown(error), {
                cause: error,
              }),
        );
      }
    });
    runs.sort(
      (first, second) =>
        second.updatedAt.localeCompare(first.updatedAt) || first.runId.localeCompare(second.runId),
    );
    unreadable.sort((first, second) => first.source.localeCompare(second.source));
    return { runs, unreadable };
  }

  /**
   * Claims the run with a lock file beside its state; see
   * {@link RunQueue.claim}. The claim lapses after `leaseMs` unless renewed,
   * and is then taken by the next process that claims the run.
   */
  async claim(runId: string, options: RunClaimOptions = {}): Promise<RunClaim> {
    this.pathOf(runId);
    try {
      await mkdir(this.#runsDirectory, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new RunStoreError(
        {
          operation: "claim",
          runId,
          message: `Could not claim run "${runId}": ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
    return claimWithLockFile(runId, this.#lockFileOf(runId), {
      ...options,
      attempts: async () => (await this.#readDue(runId)).attempts,
      leaseMs: checkLeaseMs(options.leaseMs ?? this.#leaseMs),
      wasRunning: async () => (await this.load(runId).catch(() => undefined))?.status === "running",
      onRelease: (release) => this.#schedule(runId, release),
      takingLock: `${this.pathOf(runId).slice(0, -".json".length)}.saving`,
    });
  }

  /**
   * Claims the run due first that no process holds: a suspended run whose
   * `nextCheckAt` passed, or a running run whose claim lapsed (its holder
   * stalled or died; the claim is then `recovered`); see
   * {@link RunQueue.claimNext}. Reads every state file.
   */
  async claimNext(options: RunClaimOptions = {}): Promise<RunClaim | undefined> {
    const [claim] = await this.#claimDue(options, 1);
    return claim;
  }

  /**
   * Claims up to `max` due runs, as `claimNext` claims one: it reads every
   * state file once, then takes the runs due first one by one, each under
   * its own lock file (not in one step: a run another process takes
   * meanwhile, or checked and set due later, is passed over, and the next
   * is tried); see
   * {@link RunQueue.claimDue}. The claims come oldest due first.
   */
  async claimDue(options: RunClaimDueOptions): Promise<RunClaim[]> {
    return this.#claimDue(options, checkClaimDueMax(options?.max));
  }

  async #claimDue(options: RunClaimOptions, max: number): Promise<RunClaim[]> {
    const rate = checkChecksPerSecond(options.checksPerSecond);
    const { runs } = await this.#readAll(["suspended", "running"]);
    const now = Date.now();
    const due: Array<{ runId: string; at: number; check: boolean }> = [];
    for (const run of runs.reverse()) {
      if (run.status === "running") {
        if (!isLive(await readClaimHolder(this.#lockFileOf(run.runId)))) {
          due.push({ runId: run.runId, at: 0, check: false });
        }
        continue;
      }
      const at = (await this.#readDue(run.runId)).at;
      const check = run.pendingCalls.some((call) => call.phase === "awaiting_approval");
      if (at <= now) due.push({ runId: run.runId, at, check });
    }
    due.sort((first, second) => first.at - second.at);
    const budget = this.#checkBudget;
    const claims: RunClaim[] = [];
    for (const { runId, check } of due) {
      if (claims.length >= max) break;
      // A check is paid for before the claim (two claims of this process never share a token).
      const paid = check && rate !== undefined;
      if (paid && !(await budget.take(rate))) continue;
      try {
        const claim = await this.claim(runId, { ...options, takeOver: false }).catch(
          async (error: unknown) => {
            if (paid) await budget.giveBack(rate);
            throw error;
          },
        );
        const state = await this.load(runId).catch(() => undefined);
        // Read under the claim: another process may have checked the run
        // since it was listed, and set it due later.
        const dueAt = state?.status === "suspended" ? (await this.#readDue(runId)).at : 0;
        if ((state?.status === "suspended" || state?.status === "running") && dueAt <= Date.now()) {
          claims.push(attachClaimedState(claim, state));
          continue;
        }
        // It ended, or was checked, since it was listed: nothing was tried,
        // its count and its next check stay, and the check is not spent.
        await claim.release({
          keepAttempts: true,
          ...(dueAt > 0 ? { nextCheckAt: new Date(dueAt) } : {}),
        });
        if (paid) await budget.giveBack(rate);
      } catch (error) {
        if (!(error instanceof RunNotResumableError)) {
          // The runs claimed so far are let go: the caller gets the error, not them.
          await Promise.all(
            claims.map((claim) => claim.release({ keepAttempts: true }).catch(() => {})),
          );
          throw error;
        }
      }
    }
    return claims;
  }

  /**
   * Makes a suspended run that no process holds due now, ahead of every
   * other (its `.due` file says so), and wakes the workers of this process
   * waiting on this directory; see {@link RunQueue.wake}. Workers in other
   * processes see it at their next look (their `pollIntervalMs`).
   */
  async wake(runId: string): Promise<boolean> {
    let state: RunState;
    try {
      state = await this.load(runId);
    } catch (error) {
      if (error instanceof RunNotFoundError) return false;
      throw error;
    }
    if (state.status !== "suspended") return false;
    if (isLive(await readClaimHolder(this.#lockFileOf(runId)))) return false;
    const { attempts, lastError } = await this.#readDue(runId);
    // Before every due time, 0 included (a run never checked is due since
    // its save): its answer is known, it goes first.
    await this.#writeDue(runId, { at: wokenDueAt, attempts, lastError });
    dueNoticesOf(this.directory).notify();
    return true;
  }

  /**
   * Waits `timeoutMs`, or less when a run of this directory is made due in
   * this process (`wake`, a release due at once); see {@link RunQueue.waitForDue}.
   */
  waitForDue(options: RunDueWaitOptions): Promise<"notified" | "timeout" | "aborted"> {
    return dueNoticesOf(this.directory).wait(options.timeoutMs, options.signal);
  }

  #lockFileOf(runId: string): string {
    return `${this.pathOf(runId).slice(0, -".json".length)}.lock`;
  }

  #revisionFileOf(runId: string): string {
    return `${this.pathOf(runId).slice(0, -".json".length)}.revision`;
  }

  #dueFileOf(runId: string): string {
    return `${this.pathOf(runId).slice(0, -".json".length)}.due`;
  }

  /**
   * The run's `.due` file: when it is due (at once when there is none) and
   * its failed attempts in a row. Older files hold the time alone.
   */
  async #readDue(runId: string): Promise<DueRecord> {
    let text: string;
    try {
      text = (await readFile(this.#dueFileOf(runId), "utf8")).trim();
    } catch {
      return { at: 0, attempts: 0 };
    }
    if (!text.startsWith("{")) {
      const at = Date.parse(text);
      return { at: Number.isNaN(at) ? 0 : at, attempts: 0 };
    }
    try {
      const record = JSON.parse(text) as Record<string, unknown>;
      const at = typeof record.nextCheckAt === "string" ? Date.parse(record.nextCheckAt) : 0;
      const attempts = Number.isInteger(record.attempts) ? (record.attempts as number) : 0;
      return {
        at: Number.isNaN(at) ? 0 : at,
        attempts,
        ...(typeof record.lastError === "string" ? { lastError: record.lastError } : {}),
      };
    } catch {
      return { at: 0, attempts: 0 };
    }
  }

  /**
   * Writes the `.due` file; none is left for a run due at once with no
   * failures (`at` 0). A time passed is kept: due runs go oldest first.
   */
  async #writeDue(runId: string, due: DueRecord): Promise<void> {
    if (due.at === 0 && due.attempts === 0) {
      await unlink(this.#dueFileOf(runId)).catch(() => {});
      return;
    }
    const record = {
      nextCheckAt: new Date(due.at).toISOString(),
      attempts: due.attempts,
      ...(due.lastError !== undefined ? { lastError: due.lastError } : {}),
    };
    await writeFile(this.#dueFileOf(runId), `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }

  async #schedule(runId: string, options: RunReleaseOptions): Promise<void> {
    const at = options.nextCheckAt?.getTime() ?? 0;
    const failed = typeof options.error === "string";
    const kept = !failed && options.keepAttempts === true;
    const before = failed || kept ? await this.#readDue(runId) : undefined;
    await this.#writeDue(runId, {
      at,
      attempts: before ? before.attempts + (failed ? 1 : 0) : 0,
      ...(failed ? { lastError: options.error } : kept ? { lastError: before?.lastError } : {}),
    });
    if (at <= Date.now()) dueNoticesOf(this.directory).notify();
  }

  /** The run's next check, failures in a row and last error; see {@link RunQueue.schedule}. */
  async schedule(runId: string): Promise<RunSchedule | undefined> {
    let state: RunState;
    try {
      state = await this.load(runId);
    } catch (error) {
      if (error instanceof RunNotFoundError) return undefined;
      throw error;
    }
    const due = await this.#readDue(runId);
    let nextCheckAt: number | undefined;
    // Due at once reads as due since the run was saved.
    if (state.status === "suspended") nextCheckAt = Math.max(due.at, Date.parse(state.updatedAt));
    else if (state.status === "running") {
      const holder = await readClaimHolder(this.#lockFileOf(runId));
      nextCheckAt = holder?.expiresAt ? Date.parse(holder.expiresAt) : 0;
    }
    return {
      ...(nextCheckAt !== undefined ? { nextCheckAt: new Date(nextCheckAt) } : {}),
      attempts: due.attempts,
      ...(due.attempts > 0 && due.lastError !== undefined ? { lastError: due.lastError } : {}),
    };
  }

  /**
   * Under the run's save lock: checks the claim and the revision as `save`
   * does, then writes the used-approval marker
   * (`used-approvals/<sha256 of the approval id>.json`) and the
   * call's execution records (`executions/<runId>/<sha256>.json`, one by id
   * and one by content), and last the state itself, by a rename: the commit.
   * The marker and records are then rewritten as committed. A marker not
   * committed that the stored state does not account for (its run does not
   * list the approval as used), or an uncommitted record of a call the state
   * does not show started, was left by a write that crashed before its
   * commit, and is taken over. See
   * {@link RunStore.startCall}.
   */
  async startCall(
    state: RunState,
    start: CallStart,
    options: RunSaveOptions = {},
  ): Promise<CallStartOutcome> {
    const checked = parseRunState(state, "the state to save");
    const { runId } = checked;
    const file = this.pathOf(runId);
    forgetClaimedState(options.claim);
    await this.#keepSealed(checked);
    await mkdir(this.#runsDirectory, { recursive: true, mode: 0o700 }).catch(() => {});
    const saving = `${file.slice(0, -".json".length)}.saving`;
    const { approval } = start;
    const marker = approval ? this.#usedApprovalFile(approval) : undefined;
    if (marker) await mkdir(this.#usedApprovalsDirectory, { recursive: true, mode: 0o700 });
    return withLockFile(saving, { operation: "startCall", runId }, async () => {
      if (!marker) return this.#startLocked(checked, start, options, undefined);
      // Runs spending the same approval at once each hold their own run's
      // lock: the approval's own lock lets one of them check and write it.
      return withLockFile(`${marker}.lock`, { operation: "startCall", runId }, () =>
        this.#startLocked(checked, start, options, marker),
      );
    });
  }

  /** `startCall` under the run's lock, and the approval's when it spends one. */
  async #startLocked(
    checked: RunState,
    start: CallStart,
    options: RunSaveOptions,
    marker: string | undefined,
  ): Promise<CallStartOutcome> {
    const { runId } = checked;
    const file = this.pathOf(runId);
    const { approval } = start;
    const stored = await this.#checkSave(runId, options);
    const records = [
      this.#executionFileOf(runId, start.toolCallId),
      this.#executionFileOf(runId, `content\n${start.contentKey}`),
    ];
    if (marker && approval) {
      const found = await readRecord(marker, "startCall", runId);
      const leftover =
        found?.committed === false &&
        found.runId === runId &&
        found.toolCallId === start.toolCallId &&
        stored?.usedApprovals?.includes(approval) !== true;
      if (found && !leftover) {
        return {
          outcome: "already_used",
          ...(typeof found.runId === "string" ? { runId: found.runId } : {}),
          ...(typeof found.toolCallId === "string" ? { toolCallId: found.toolCallId } : {}),
        };
      }
    }
    for (const record of records) {
      const found = await readRecord(record, "startCall", runId);
      const toolCallId = typeof found?.toolCallId === "string" ? found.toolCallId : undefined;
      const leftover =
        found?.committed === false && toolCallId !== undefined && !startedIn(stored, toolCallId);
      if (found && !leftover) {
        return {
          outcome: "already_started",
          toolCallId: toolCallId ?? start.toolCallId,
          ...(typeof found.content === "string" ? { content: found.content } : {}),
        };
      }
    }
    const record = {
      runId,
      toolCallId: start.toolCallId,
      fingerprint: start.fingerprint,
      startedAt: new Date().toISOString(),
    };
    try {
      if (marker && approval) {
        await mkdir(this.#usedApprovalsDirectory, { recursive: true, mode: 0o700 });
        await replaceDurably(marker, { approvalId: approval, ...record, committed: false });
      }
      await mkdir(join(this.directory, "executions", runId), { recursive: true, mode: 0o700 });
      for (const execution of records) {
        await replaceDurably(execution, {
          ...record,
          contentKey: start.contentKey,
          committed: false,
        });
      }
    } catch (error) {
      throw new RunStoreError(
        {
          operation: "startCall",
          runId,
          message: `Could not record that call "${start.toolCallId}" of run "${runId}" starts: ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
    await this.#write(checked, file);
    // The state is the commit; the marker and records then say so
    // themselves, so an older copy of the state put back later cannot pass
    // them for leftovers of a write that crashed.
    try {
      if (marker && approval) {
        await replaceDurably(marker, { approvalId: approval, ...record, committed: true });
      }
      for (const execution of records) {
        await replaceDurably(execution, {
          ...record,
          contentKey: start.contentKey,
          committed: true,
        });
      }
    } catch {
      // Uncommitted records the stored state accounts for still stand.
    }
    return { outcome: "started" };
  }

  /** Adds the tool message to the call's execution record; see {@link RunStore.recordFinish}. */
  async recordFinish(runId: string, toolCallId: string, content: string): Promise<void> {
    const file = this.#executionFileOf(runId, toolCallId);
    try {
      const record = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
      const finished = { ...record, finishedAt: new Date().toISOString(), content };
      await replaceDurably(file, finished);
      if (typeof record.contentKey === "string") {
        const byContent = this.#executionFileOf(runId, `content\n${record.contentKey}`);
        await replaceDurably(byContent, finished);
      }
    } catch (error) {
      throw new RunStoreError(
        {
          operation: "recordFinish",
          runId,
          message: `Could not record how call "${toolCallId}" of run "${runId}" ended (${file}): ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
  }

  #executionFileOf(runId: string, toolCallId: string): string {
    this.pathOf(runId);
    const name = createHash("sha256").update(toolCallId).digest("hex");
    return join(this.directory, "executions", runId, `${name}.json`);
  }

  /**
   * True when `used-approvals/` holds the approval's marker, made by a write
   * that took effect (the marker says so, or its run's state lists the
   * approval as used, or the run is gone); see {@link RunStore.isApprovalUsed}.
   */
  async isApprovalUsed(approval: string): Promise<boolean> {
    const found = await readRecord(this.#usedApprovalFile(approval), "isApprovalUsed", undefined);
    if (!found) return false;
    if (found.committed !== false) return true;
    if (typeof found.runId !== "string" || findRunIdProblem(found.runId)) return true;
    const state = await this.load(found.runId).catch((error: unknown) => {
      if (error instanceof RunNotFoundError) return undefined;
      throw error;
    });
    // A run that is gone cannot tell: its marker stands. A run that is
    // there tells by its state (a state without the list spent nothing).
    if (!state) return true;
    return state.usedApprovals?.includes(approval) === true;
  }

  /**
   * Binds the interaction to its question, once: under the binding's own
   * lock, reads `interaction-bindings/<sha256 of the link and interaction
   * id>.json` and writes it when there is none (a temporary file renamed
   * into place). A file that cannot be read names a question of unknown
   * origin: the interaction stays taken. See {@link RunStore.bindInteraction}.
   */
  async bindInteraction(binding: InteractionBinding): Promise<InteractionBindingOutcome> {
    checkInteractionBinding(binding);
    const directory = join(this.directory, "interaction-bindings");
    const key = JSON.stringify([binding.approverLink, binding.interactionId]);
    const file = join(directory, `${createHash("sha256").update(key).digest("hex")}.json`);
    const what = { operation: "bindInteraction", runId: binding.runId };
    await mkdir(directory, { recursive: true, mode: 0o700 }).catch(() => {});
    return withLockFile(`${file}.lock`, what, async () => {
      const found = await readRecord(file, "bindInteraction", binding.runId);
      if (found !== undefined) {
        if (found.question === binding.question) return { outcome: "bound" };
        return {
          outcome: "taken",
          ...(typeof found.runId === "string" ? { runId: found.runId } : {}),
        };
      }
      try {
        await replaceDurably(file, { ...binding, boundAt: new Date().toISOString() });
      } catch (error) {
        throw new RunStoreError(
          {
            ...what,
            message: `Could not record which question an interaction of run "${binding.runId}" holds (${file}): ${describeThrown(error)}`,
          },
          { cause: error },
        );
      }
      return { outcome: "bound" };
    });
  }

  #usedApprovalFile(approval: string): string {
    const name = createHash("sha256").update(`approval\n${approval}`).digest("hex");
    return join(this.#usedApprovalsDirectory, `${name}.json`);
  }

  /**
   * Removes the run's files under its claim: taken here (refused while
   * another process holds the run), or the caller's `options.claim`.
   */
  async delete(runId: string, options: RunDeleteOptions = {}): Promise<boolean> {
    const file = this.pathOf(runId);
    const given = options.claim;
    if (given && given.runId !== runId) throw claimOfAnotherRun("delete", runId, given);
    if (given && !isHeldBy(await readClaimHolder(this.#lockFileOf(runId)), given)) {
      throw new RunConflictError({
        operation: "delete",
        runId,
        reason: "claim",
        message: `Run "${runId}" was not deleted: the claim given is no longer current (the run was taken over or released).`,
      });
    }
    const claim = given ?? (await this.claim(runId));
    try {
      await unlink(file);
      await rm(join(this.directory, "executions", runId), { recursive: true, force: true });
      await unlink(this.#dueFileOf(runId)).catch(() => {});
      await unlink(this.#revisionFileOf(runId)).catch(() => {});
      return true;
    } catch (error) {
      if (errorCode(error) === "ENOENT") return false;
      throw new RunStoreError(
        {
          operation: "delete",
          runId,
          message: `Could not delete ${file}: ${describeThrown(error)}`,
        },
        { cause: error },
      );
    } finally {
      if (!given) await claim.release().catch(() => {});
    }
  }
}

/**
 * True when the state shows the call started: `started` or `finished` in
 * the open step, or answered by a tool message. A start record it does not
 * show was left by a write that never took effect.
 */
function startedIn(state: RunState | undefined, toolCallId: string): boolean {
  // A run that is gone cannot tell: its records stand.
  if (!state) return true;
  const call = state.pendingCalls.find((pending) => pending.toolCallId === toolCallId);
  if (call) return call.phase === "started" || call.phase === "finished";
  return state.messages.some(
    (message) => message.role === "tool" && message.tool_call_id === toolCallId,
  );
}

/**
 * A marker or execution record; `undefined` when there is none. One that
 * cannot be read as JSON counts as a record of unknown origin (it stands).
 */
async function readRecord(
  file: string,
  operation: string,
  runId: string | undefined,
): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw new RunStoreError(
      { operation, runId, message: `Could not read ${file}: ${describeThrown(error)}` },
      { cause: error },
    );
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Replaces a file with the JSON of `record`, flushed to disk: a temporary
 * file renamed over it, so a reader finds the old record or the new one.
 */
async function replaceDurably(file: string, record: Record<string, unknown>): Promise<void> {
  const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeDurably(temporary, `${JSON.stringify(record)}\n`, "wx");
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(file));
}

/** Writes a file and flushes it to disk before resolving. */
async function writeDurably(file: string, text: string, flag: "wx" | "w"): Promise<void> {
  const handle = await open(file, flag, 0o600);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the rename itself durable; some systems (Windows) cannot open a directory, which is fine. */
async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, "r");
    await handle.sync();
  } catch {
    // Best effort: the file itself was flushed before the rename.
  } finally {
    await handle?.close().catch(() => {});
  }
}

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The notices of each state directory, shared by the stores of this process on it. */
const noticesByDirectory = new Map<string, DueNotices>();

/**
 * The budget of approval checks of a state directory, a token bucket kept
 * in its `check-budget.json` and changed under `check-budget.lock`, so the
 * processes sharing the directory pay from one bucket: refilled at the
 * rate, at most one second's worth (at least one) saved up, full at first.
 */
class CheckBudgetFile {
  readonly #directory: string;
  readonly #file: string;

  constructor(directory: string) {
    this.#directory = directory;
    this.#file = join(directory, "check-budget.json");
  }

  /** Takes one check when there is room for it. */
  take(perSecond: number): Promise<boolean> {
    return this.#change(perSecond, (tokens) => (tokens >= 1 ? tokens - 1 : undefined));
  }

  /** A check taken for a run that could not be claimed after all. */
  async giveBack(perSecond: number): Promise<void> {
    await this.#change(perSecond, (tokens) => Math.min(Math.max(1, perSecond), tokens + 1));
  }

  /**
   * Refills the bucket to now and sets what `change` makes of its tokens,
   * under the lock; `change` answering `undefined` writes nothing. True
   * when something was written.
   */
  async #change(
    perSecond: number,
    change: (tokens: number) => number | undefined,
  ): Promise<boolean> {
    await mkdir(this.#directory, { recursive: true, mode: 0o700 });
    const what = { operation: "claimNext", subject: "the budget of approval checks" };
    return withLockFile(`${this.#file.slice(0, -".json".length)}.lock`, what, async () => {
      const record = await readRecord(this.#file, "claimNext", undefined);
      const now = Date.now();
      const capacity = Math.max(1, perSecond);
      const saved = typeof record?.tokens === "number" ? record.tokens : capacity;
      const since = typeof record?.refilledAt === "number" ? record.refilledAt : now;
      // A clock set back refills nothing (the processes are on one machine, or should agree).
      const tokens = Math.min(capacity, saved + (Math.max(0, now - since) / 1000) * perSecond);
      const changed = change(tokens);
      if (changed === undefined) return false;
      await replaceDurably(this.#file, { tokens: changed, refilledAt: now });
      return true;
    });
  }
}

function dueNoticesOf(directory: string): DueNotices {
  let notices = noticesByDirectory.get(directory);
  if (!notices) {
    notices = new DueNotices();
    noticesByDirectory.set(directory, notices);
  }
  return notices;
}

/** The due time `wake` gives a run: ahead of every other. */
const wokenDueAt = -1;

/** What a run's `.due` file holds. */
interface DueRecord {
  /** When the run is due, in milliseconds since the epoch; 0: at once. */
  at: number;
  attempts: number;
  lastError?: string | undefined;
}
