import { setMaxListeners } from "node:events";
import { neverAborted } from "./never-aborted.js";

/** A signal of the library's own that fires with another, until released. */
export interface FollowedSignal {
  signal: AbortSignal;
  /** Stops following: removes the one listener on the followed signal. */
  release(): void;
}

const nothingToRelease = () => {};

/**
 * A signal that fires when `signal` does, with its reason: the tool calls of
 * one step listen to it, so the caller's signal gets one listener however
 * many calls run at once, instead of one per call (Node warns past 10 on a
 * signal). Its own listener limit is lifted: a step's listeners live one
 * step, about one per running call plus those of waiting approvals. A signal
 * that cannot fire again ({@link neverAborted}, or one that has fired) is
 * returned as it is.
 */
export function followSignal(signal: AbortSignal): FollowedSignal {
  if (signal === neverAborted || signal.aborted) return { signal, release: nothingToRelease };
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    release: () => signal.removeEventListener("abort", onAbort),
  };
}
