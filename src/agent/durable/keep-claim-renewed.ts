import { RunConflictError } from "./durable-errors.js";
import type { RunClaim } from "./run-queue.js";

/**
 * Renews a claim every third of its remaining lease, until the returned
 * function is called.
 * A renewal the store refuses (`RunConflictError`: another process took
 * the run over, or it was released) stops the renewing: the holder's next
 * save is refused by the store. A renewal that fails otherwise (the store
 * could not be reached) is tried again on the same schedule, however long
 * the outage: a store that fences claims by their token (`PostgresRunStore`)
 * lets a holder whose lease ran out meanwhile keep the run, unless another
 * process took it.
 */
export function keepClaimRenewed(claim: RunClaim | undefined): () => void {
  if (!claim) return () => {};
  const expiresAt = claim.expiresAt;
  const everyMs = Math.max(50, Math.floor((expiresAt.getTime() - Date.now()) / 3));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    timer = setTimeout(async () => {
      try {
        await claim.renew();
      } catch (error) {
        // Lost: the store fences this holder's saves from now on.
        if (error instanceof RunConflictError) return;
      }
      if (!stopped) schedule();
    }, everyMs);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
