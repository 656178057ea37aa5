import type { RunClaim } from "./run-queue.js";

/**
 * Renews a claim every third of its remaining lease, until the returned
 * function is called.
 * A renewal that fails stops the renewing: the claim is lost (taken over or
 * expired), and the holder's next save is refused by the store.
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
        if (!stopped) schedule();
      } catch {
        // Lost: the store fences this holder's saves from now on.
      }
    }, everyMs);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
