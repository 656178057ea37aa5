/**
 * The shortest wait before answers still pending are read again (a
 * `RunWorker`'s default `firstRecheckAfterMs`, and a DBOS run's floor): a
 * question past its expiry by the clock but still pending at the service
 * is read again after this, not in a loop.
 */
export const firstRecheckAfterMs = 1_000;

/** How a {@link nextRecheckAt} schedule grows. */
export interface RecheckSchedule {
  /** The first wait after a question is asked. */
  firstMs: number;
  /** The longest wait between two checks. */
  capMs: number;
}

/**
 * When to ask again about answers still pending: a wait as long as the run
 * has waited so far (so the checks come at about 1, 2, 4, 8 ... times
 * `firstMs` after the question), at least `firstMs`, at most `capMs`, made
 * up to a quarter shorter at random so that runs suspended together spread
 * out. Never later than just after `expiresAt`: the expiry is read then.
 */
export function nextRecheckAt(
  schedule: RecheckSchedule,
  waiting: { sinceMs: number; nowMs: number; expiresAt?: Date | undefined },
  random: () => number = Math.random,
): Date {
  const { firstMs, capMs } = schedule;
  const waitedMs = Math.max(0, waiting.nowMs - waiting.sinceMs);
  const base = Math.min(capMs, Math.max(firstMs, waitedMs));
  let at = waiting.nowMs + Math.round(base * (1 - 0.25 * random()));
  const expiresAtMs = waiting.expiresAt?.getTime();
  if (expiresAtMs !== undefined && !Number.isNaN(expiresAtMs)) {
    // Just after the expiry, when the service has marked the question expired.
    at = Math.min(at, Math.max(expiresAtMs + expiryGraceMs, waiting.nowMs + firstMs));
  }
  return new Date(at);
}

/**
 * The wait before a run whose resume failed is tried again: `firstMs`
 * doubling with each failure in a row, at most `capMs`, up to a quarter
 * shorter at random.
 */
export function nextRetryAt(
  schedule: RecheckSchedule,
  failures: { attempts: number; nowMs: number },
  random: () => number = Math.random,
): Date {
  const { firstMs, capMs } = schedule;
  const exponent = Math.min(Math.max(failures.attempts - 1, 0), 30);
  const base = Math.min(capMs, firstMs * 2 ** exponent);
  return new Date(failures.nowMs + Math.round(base * (1 - 0.25 * random())));
}

/** How long after a question's expiry it is read. */
const expiryGraceMs = 1_000;
