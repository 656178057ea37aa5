import type { RunStateError } from "./durable-errors.js";
import type { PendingCallPhase, RunState, RunStateStatus } from "./run-state.js";

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
}

/** Which runs `list` returns. */
export interface RunListOptions {
  /** Only runs with this status (or one of these). @default every status */
  status?: RunStateStatus | readonly RunStateStatus[];
}

/** The runs found, and the stored states that could not be read (never skipped silently). */
export interface RunList {
  /** Most recently updated first. */
  runs: RunSummary[];
  unreadable: RunStateError[];
}

/** A run claimed by this process; release it when done with the run. */
export interface RunClaim {
  release(): Promise<void>;
}

/**
 * Where durable runs are kept between processes. `FileRunStore` is the
 * embedded default; `docs/scaling.md` describes what a store shared by many
 * workers adds (compare-and-set, leases, paging).
 *
 * A store saves what it is given, whole: the agent redacts states before
 * saving them, and a store must never write a half state (a reader sees the
 * previous state or the new one).
 */
export interface RunStore {
  /** Creates or replaces the run's state. Rejects with `RunStoreError` when it cannot. */
  save(state: RunState): Promise<void>;
  /** The run's state; rejects with `RunNotFoundError`, or `RunStateError` when unreadable. */
  load(runId: string): Promise<RunState>;
  list(options?: RunListOptions): Promise<RunList>;
  /** Removes the run; resolves `false` when there was none. */
  delete(runId: string): Promise<boolean>;
  /**
   * Makes this process the only one working on the run until released, so
   * two processes never resume the same run at once. Rejects with
   * `RunNotResumableError` (status `claimed`) when another holds it, unless
   * `takeOver` says that holder is gone. Optional: the agent claims runs
   * when the store can; a store shared by several processes should.
   */
  claim?(runId: string, options?: { takeOver?: boolean }): Promise<RunClaim>;
  /**
   * Records, for good, that the approval given in this interaction let its
   * action run: resolves `true` the first time, `false` when it was recorded
   * before (the call is then refused as `already_used`), and rejects when it
   * cannot record (the call is then not run). The record outlives `delete`,
   * so a saved state resumed again never runs an approved call twice.
   * Optional: without it, approvals are remembered only in this process.
   */
  markApprovalUsed?(interactionId: string, fingerprint: string): Promise<boolean>;
}

/** The summary of one state, as `list` gives it. */
export function summarizeRunState(state: RunState): RunSummary {
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
  };
}
