/**
 * A deadline started by {@link startDeadline}: it calls its function once
 * `ms` have passed since it was started or last refreshed, unless cleared.
 */
export interface Deadline {
  /** Starts the wait again from now (an idle timer's "something happened"). */
  refresh(): void;
  /** Stops it; it will not fire. Clearing twice, or after it fired, does nothing. */
  clear(): void;
}

/**
 * The deadlines of one duration, in the order they fall due. Every deadline
 * of a lane is `ms` after its start on one monotonic clock, so the order
 * they were started (or refreshed) in is the order they expire in, and a
 * `Set`, which iterates in insertion order, keeps them sorted for free.
 */
class Lane {
  readonly ms: number;
  readonly keepsProcessAlive: boolean;
  readonly entries = new Set<Entry>();
  #timer: NodeJS.Timeout | undefined;

  constructor(ms: number, keepsProcessAlive: boolean) {
    this.ms = ms;
    this.keepsProcessAlive = keepsProcessAlive;
  }

  add(entry: Entry): void {
    const wasEmpty = this.entries.size === 0;
    this.entries.add(entry);
    if (this.#timer === undefined) this.#arm(entry.dueAt);
    // The timer keeps the process alive only while something waits on it.
    else if (wasEmpty && this.keepsProcessAlive) this.#timer.ref();
  }

  remove(entry: Entry): void {
    if (this.entries.delete(entry) && this.entries.size === 0 && this.keepsProcessAlive) {
      this.#timer?.unref();
    }
  }

  #arm(dueAt: number): void {
    this.#timer = setTimeout(fireLane, Math.max(1, Math.ceil(dueAt - performance.now())), this);
    if (!this.keepsProcessAlive) this.#timer.unref();
  }

  /** The timer fired: expire what is due, and arm for the first one that is not. */
  fire(): void {
    this.#timer = undefined;
    const now = performance.now();
    const due: Entry[] = [];
    for (const entry of this.entries) {
      if (entry.dueAt > now) {
        this.#arm(entry.dueAt);
        break;
      }
      this.entries.delete(entry);
      due.push(entry);
    }
    // A lane nothing waits on is dropped; the next deadline of its length makes a new one.
    if (this.#timer === undefined) lanesOf(this.keepsProcessAlive).delete(this.ms);
    for (const entry of due) {
      try {
        entry.expire();
      } catch (error) {
        // As from a timer's own function: an uncaught exception, after the others ran.
        process.nextTick(() => {
          throw error;
        });
      }
    }
  }
}

function fireLane(lane: Lane): void {
  lane.fire();
}

class Entry implements Deadline {
  readonly #lane: Lane;
  readonly #onExpire: () => void;
  dueAt: number;

  constructor(lane: Lane, onExpire: () => void) {
    this.#lane = lane;
    this.#onExpire = onExpire;
    this.dueAt = performance.now() + lane.ms;
    lane.add(this);
  }

  refresh(): void {
    const lane = this.#lane;
    if (!lane.entries.has(this)) return;
    // Re-inserted at the end: its new due time is the latest of the lane.
    lane.entries.delete(this);
    this.dueAt = performance.now() + lane.ms;
    lane.add(this);
  }

  clear(): void {
    this.#lane.remove(this);
  }

  expire(): void {
    this.#onExpire();
  }
}

/** The longest delay `setTimeout` takes as given (a longer one fires after 1 ms). */
const longestTimerMs = 2_147_483_647;

/**
 * A deadline of a length no lane takes (a fraction, zero, or beyond what
 * `setTimeout` takes): a timer of its own, so it behaves exactly as
 * `setTimeout` does with that length.
 */
class TimerDeadline implements Deadline {
  readonly #timer: NodeJS.Timeout;
  /** Cleared, or fired: a refresh no longer starts it again. */
  #ended = false;

  constructor(ms: number, onExpire: () => void, keepsProcessAlive: boolean) {
    this.#timer = setTimeout(() => {
      this.#ended = true;
      onExpire();
    }, ms);
    if (!keepsProcessAlive) this.#timer.unref();
  }

  refresh(): void {
    if (!this.#ended) this.#timer.refresh();
  }

  clear(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
  }
}

/** The lanes of deadlines that keep the process alive while pending, and of those that do not. */
const lanes = { kept: new Map<number, Lane>(), unreferenced: new Map<number, Lane>() };

function lanesOf(keepsProcessAlive: boolean): Map<number, Lane> {
  return keepsProcessAlive ? lanes.kept : lanes.unreferenced;
}

/**
 * Calls `onExpire` once `ms` have passed, unless cleared first: a
 * `setTimeout` for the many short-lived timers of the request path (a
 * request's timeout, a stream's idle timer, a tool call's timeout, an idle
 * connection), most of which are cleared long before they fire.
 *
 * Node makes a timer object per `setTimeout`, and when the last timer of a
 * duration is cleared it drops that duration's list, to rebuild it for the
 * next request. Here the deadlines of one duration share one timer, armed
 * for the first of them to fall due, and starting or clearing one is adding
 * to or deleting from a `Set`. The timer is unreferenced while its lane is
 * empty: as with cleared timers, a lane with nothing in it keeps no process
 * alive.
 *
 * A pending deadline keeps the process alive, as a timer does, unless
 * `keepsProcessAlive` is false (an idle connection's, as Node's own socket
 * timeouts). Measured on the monotonic clock (`performance.now()`), as
 * Node's timers are; a deadline fires no earlier than `ms` after its start
 * or refresh, and as late as a timer would (the event loop's turn).
 */
export function startDeadline(
  ms: number,
  onExpire: () => void,
  keepsProcessAlive = true,
): Deadline {
  if (!(ms >= 1 && ms <= longestTimerMs) || !Number.isInteger(ms)) {
    return new TimerDeadline(ms, onExpire, keepsProcessAlive);
  }
  const laneOfLength = lanesOf(keepsProcessAlive);
  let lane = laneOfLength.get(ms);
  if (!lane) {
    lane = new Lane(ms, keepsProcessAlive);
    laneOfLength.set(ms, lane);
  }
  return new Entry(lane, onExpire);
}
