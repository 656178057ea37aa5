import { AbortedError } from "../errors/transport-errors.js";
import { MaxStepsExceededError } from "./errors.js";
import type { RunStatus } from "./run-result.js";

/** Why the loop stops after a step, with the error the result carries. */
export interface StopDecision {
  status: Exclude<RunStatus, "failed">;
  error?: Error;
}

/**
 * Decides after a step whether the run ends: aborted when the signal fired,
 * completed when the model asked for no tool, max_steps when the budget is
 * spent. `undefined` means: call the model again.
 */
export function decideStop(state: {
  signal: AbortSignal;
  askedForTools: boolean;
  stepNumber: number;
  maxSteps: number;
}): StopDecision | undefined {
  if (!state.askedForTools) return { status: "completed" };
  if (state.signal.aborted) return { status: "aborted", error: runAbortedError(state.signal) };
  if (state.stepNumber >= state.maxSteps) {
    return { status: "max_steps", error: new MaxStepsExceededError(state.maxSteps) };
  }
  return undefined;
}

/** The error of an aborted run; the signal's reason is its cause. */
export function runAbortedError(signal: AbortSignal): AbortedError {
  return new AbortedError("The run was aborted by the caller", { cause: signal.reason });
}
