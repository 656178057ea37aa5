/**
 * The claims one store handed out whose holders, in this process, are
 * still renewing them: a renewal is in flight (it may be waiting out an
 * outage of the database), or one was tried (or the claim handed out)
 * less than a lease ago. Such a
 * holder is alive, however long ago its lease expired in the store: it
 * only could not reach the store, and renews under the same token once it
 * can. So the store never hands one of their runs to this process again
 * (that would report the holder's call in flight as of unknown outcome).
 * A holder that stops trying (it stalled, or forgot its claim) is
 * forgotten a lease after its last try, and its run is then taken as any
 * other run under an expired claim. Other processes know nothing of this:
 * they take an expired claim over as before, and the new token fences the
 * holder out.
 */
export class RenewingClaims {
  readonly #claims = new Map<number, { inFlight: number; triedAt: number; leaseMs: number }>();

  /** A claim with `token` was handed out now: its holder has a lease to begin renewing it. */
  hold(token: number, leaseMs: number): void {
    this.#claims.set(token, { inFlight: 0, triedAt: Date.now(), leaseMs });
  }

  /** Runs one renewal of the claim with `token`, as its holder's sign of life. */
  async renew<T>(token: number, renewal: () => Promise<T>): Promise<T> {
    const entry = this.#claims.get(token);
    if (!entry) return renewal();
    entry.inFlight++;
    try {
      return await renewal();
    } finally {
      entry.inFlight--;
      entry.triedAt = Date.now();
    }
  }

  /** Forgets the claim: it was released, or lost to another process. */
  forget(token: number): void {
    this.#claims.delete(token);
  }

  /** The tokens of the claims whose holders are renewing them now. */
  tokens(): number[] {
    const now = Date.now();
    const renewing: number[] = [];
    for (const [token, entry] of this.#claims) {
      if (entry.inFlight > 0 || now - entry.triedAt < entry.leaseMs) renewing.push(token);
      else this.#claims.delete(token);
    }
    return renewing;
  }
}
