import type { RunClaim } from "../agent/durable/run-queue.js";
import type { RunState } from "../agent/durable/run-state.js";

/**
 * What this process knows of the claims its stores handed out, besides the
 * store: the states they were handed out with (`RunClaim.state`), each kept
 * until the first save under its claim, by any store of this process: from
 * then on the claim carries none, and a resume loads the run.
 */
const claimedStates = new WeakMap<RunClaim, RunState>();

/** Claims ended by a save (`RunSaveOptions.release`): their `release()` writes nothing. */
const endedClaims = new WeakSet<RunClaim>();

/** Gives the claim its `state` (none when `state` is undefined); returns the claim. */
export function attachClaimedState(claim: RunClaim, state: RunState | undefined): RunClaim {
  if (state) claimedStates.set(claim, state);
  Object.defineProperty(claim, "state", {
    get: () => claimedStates.get(claim),
    enumerable: true,
    configurable: true,
  });
  return claim;
}

/** A save is made under the claim: the state it carried is no longer the run's. */
export function forgetClaimedState(claim: RunClaim | undefined): void {
  if (claim) claimedStates.delete(claim);
}

/** The claim was ended by a save (`RunSaveOptions.release`). */
export function endClaimBySave(claim: RunClaim): void {
  endedClaims.add(claim);
}

/** True once a save ended the claim: there is nothing left to release. */
export function isClaimEndedBySave(claim: RunClaim): boolean {
  return endedClaims.has(claim);
}
