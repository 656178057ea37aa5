import { SwitchyardError } from "../../errors/switchyard-error.js";

/**
 * A run state that cannot be read: not JSON, not a run state (no or another
 * `format` marker), written by a newer version, or with fields missing or
 * wrong. `source` names the file (or "the value given"); `problems`
 * lists each thing wrong, so nothing is ever half-read.
 */
export class RunStateError extends SwitchyardError {
  override readonly name: string = "RunStateError";
  /** The file path, or a description of where the state came from. */
  readonly source: string;
  readonly problems: readonly string[];

  constructor(source: string, problems: string | readonly string[], options?: { cause?: unknown }) {
    const list = typeof problems === "string" ? [problems] : [...problems];
    super(
      `Invalid run state (${source}): ${list.length === 1 ? list[0] : `${list.length} problems:\n- ${list.join("\n- ")}`}`,
      options,
    );
    this.source = source;
    this.problems = list;
  }
}

/**
 * The stored state is an older copy of the run, put back in place of a later
 * one: it waits for the answer to a question whose approval already let its
 * call run. It is never resumed and never retried: a worker ends it `failed`
 * at once, naming the rollback, and the record of the call that ran (the
 * store's ledger) stays as it is.
 */
export class RunRolledBackError extends RunStateError {
  override readonly name: string = "RunRolledBackError";
  readonly runId: string;
  /** The approval that already let its call run. */
  readonly approvalId: string;

  constructor(source: string, runId: string, approvalId: string) {
    super(
      source,
      `it waits for the answer to approval "${approvalId}", which already let its call run: it is an older copy of run "${runId}" put back in place of a later one (a rollback of the store); it is not resumed (start a new run with its messages if the task must go on)`,
    );
    this.runId = runId;
    this.approvalId = approvalId;
  }
}

/** No run with this id is in the store. */
export class RunNotFoundError extends SwitchyardError {
  override readonly name: string = "RunNotFoundError";
  readonly runId: string;

  constructor(runId: string, where: string) {
    super(`No run "${runId}" in ${where}; list the runs to see which ids exist`);
    this.runId = runId;
  }
}

/**
 * The run store could not save, read, list, delete, claim or record a used
 * approval (disk full, no permission, ...).
 */
export class RunStoreError extends SwitchyardError {
  override readonly name: string = "RunStoreError";
  /** The store method that failed: `save`, `load`, `list`, `delete`, `claim`, `startCall`, ... */
  readonly operation: string;
  readonly runId: string | undefined;

  constructor(
    details: { operation: string; runId?: string | undefined; message: string },
    options?: { cause?: unknown },
  ) {
    super(details.message, options);
    this.operation = details.operation;
    this.runId = details.runId;
  }
}

/**
 * The store refused a save (or a claim's renewal) that would overwrite
 * another's work: the stored revision is not the one expected (`revision`:
 * another process saved the run since this one read it), or this process's
 * claim is no longer the run's current one (`claim`: it expired, or the run
 * was taken over). Nothing was written; the run stops at once and runs
 * nothing destructive, and whoever holds the run now goes on with it.
 */
export class RunConflictError extends RunStoreError {
  override readonly name: string = "RunConflictError";
  readonly reason: "revision" | "claim";

  constructor(
    details: { operation: string; runId: string; reason: "revision" | "claim"; message: string },
    options?: { cause?: unknown },
  ) {
    super(details, options);
    this.reason = details.reason;
  }
}

/**
 * What a caller can do about a {@link RunNotResumableError}, so a program
 * (the CLI) need not parse the message. Each flag is set only when it applies.
 */
export interface RunNotResumableHint {
  /** Resuming with `{ takeOver: true }` goes on, if the process holding the run is gone. */
  takeOver?: true;
  /** Resume by run id (the store's state) instead of the state object given. */
  resumeById?: true;
  /** The run ended or cannot go on; start a new run (e.g. with its messages). */
  startNewRun?: true;
  /**
   * Resume again after this many milliseconds: a call the run's previous
   * holder started may still be in flight until then (a `RunWorker`
   * reschedules the run so, without counting a failed attempt).
   */
  retryAfterMs?: number;
}

/**
 * The run cannot be resumed (or started under its id): it already ended
 * (`status` is `completed`, `failed`, ...), it is marked `running` and may
 * still be running in another process, another process holds its claim
 * (`claimed`), the state given is not the one in the store (another
 * revision), or it was saved in a store that no longer holds it.
 */
export class RunNotResumableError extends SwitchyardError {
  override readonly name: string = "RunNotResumableError";
  readonly runId: string;
  readonly status: string;
  /** What may make a resume possible, as data; empty when nothing would. */
  readonly hint: RunNotResumableHint;

  constructor(runId: string, status: string, message: string, hint: RunNotResumableHint = {}) {
    super(message);
    this.runId = runId;
    this.status = status;
    this.hint = hint;
  }
}

/**
 * The refusal of a change made under a claim on another run: a claim fences
 * only the run it was taken on.
 */
export function claimOfAnotherRun(
  operation: string,
  runId: string,
  claim: { runId: string },
): RunConflictError {
  return new RunConflictError({
    operation,
    runId,
    reason: "claim",
    message: `Run "${runId}" was not changed: the claim given is on run "${claim.runId}", not this one. Pass the claim of the run you change.`,
  });
}

/**
 * The refusal of an unsealed state by a store whose states are sealed: once
 * a store saved a sealed state, a process without the key (or a hand) must
 * not write or slip in an unsealed one.
 */
export function unsealedInSealedStore(
  runId: string,
  where: string,
  what: "saved" | "loaded",
): RunStateError {
  return new RunStateError(
    `run "${runId}" in ${where}`,
    `it is not sealed, and this store's states are sealed (it was given sealed states before): it is not ${what}. Give this process the same state key as the others (stateKey, SWITCHYARD_STATE_KEY)${what === "loaded" ? "; a state without a seal was put there outside Switchyard" : ""}`,
  );
}
