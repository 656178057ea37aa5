import type { Logger } from "pino";
import { RunConflictError } from "./durable-errors.js";
import type { RunClaim } from "./run-queue.js";

/** A claim watched while its run goes on: see {@link watchClaim}. */
export interface ClaimWatch {
  /** Fires when the claim lapses: its lease ran out without a renewal. */
  readonly signal: AbortSignal;
  /**
   * True once the claim lapsed, read from the clock now (not only when the
   * timer fires: a process paused past the lease learns it here first);
   * fires `signal` when it finds so. Asked right before a call's side effect.
   */
  lapsed(): boolean;
  /** Stops watching (the run ended); `signal` never fires after. */
  stop(): void;
}

/**
 * Watches a claim a run goes on under: once its lease runs out
 * (`RunClaim.expiresAt`, which each renewal moves, and which is never later
 * than the store's lease), the process is no longer the run's holder by the
 * store's clock, and another may take it over. `signal` then fires (with a
 * `RunConflictError`, reason `claim`), which aborts the run: a request in
 * flight is aborted, nothing more is started or saved, and the lapse is
 * logged once. A claim lost to a takeover lapses at the end of its lease,
 * since its renewals are refused.
 */
export function watchClaim(claim: RunClaim, logger: Logger): ClaimWatch {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const fire = () => {
    if (controller.signal.aborted || stopped) return;
    const expiredAt = claim.expiresAt.toISOString();
    const message = `The claim on run "${claim.runId}" lapsed at ${expiredAt} (its lease ran out without a renewal: the store could not be reached, the process stalled, or another process took the run over). This process stops acting on the run: a request in flight is aborted and nothing more is run or saved; whoever holds the run next goes on with it.`;
    logger.warn({ runId: claim.runId, token: claim.token, expiredAt }, message);
    controller.abort(
      new RunConflictError({ operation: "claim", runId: claim.runId, reason: "claim", message }),
    );
  };
  const lapsed = () => {
    if (!controller.signal.aborted && !stopped && Date.now() >= claim.expiresAt.getTime()) fire();
    return controller.signal.aborted;
  };
  const arm = () => {
    if (stopped || lapsed()) return;
    // Checked again when it fires: a renewal may have moved the lease on.
    timer = setTimeout(arm, Math.max(1, claim.expiresAt.getTime() - Date.now()));
    timer.unref();
  };
  arm();
  return {
    signal: controller.signal,
    lapsed,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
