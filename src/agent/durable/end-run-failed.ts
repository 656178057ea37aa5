import { ConfigurationError } from "../../errors/configuration-error.js";
import { redactText } from "../../internal/redact.js";
import { RunNotResumableError } from "./durable-errors.js";
import { outcomeUnknownMessage } from "./outcome-unknown-message.js";
import type { RunClaim } from "./run-queue.js";
import type { RunState } from "./run-state.js";
import type { RunStore } from "./run-store.js";
import { checkRunStateSeal, sealRunState } from "./seal-run-state.js";

/** The `error.name` of a run a `RunWorker` gave up on (its resume failed `maxAttempts` times). */
export const runAttemptsExhaustedName = "RunAttemptsExhausted";

/** The `error.name` of a run a `RunWorker` ended at once because its stored state is an older copy put back (`RunRolledBackError`). */
export const runRolledBackName = "RunRolledBack";

/** What {@link endRunFailed} needs. */
export interface EndRunFailedOptions {
  store: RunStore;
  /** The claim the run is held under: the save is fenced by it. */
  claim: RunClaim;
  /** The run's `error`: a name and a message (an `Error` will do). */
  error: { name: string; message: string };
  /** Removes secrets from the error's message before it is saved. @default the redaction patterns */
  redact?: ((text: string) => string) | undefined;
  /** The key the run's states are sealed with, when they are. */
  stateKey?: string | undefined;
  /** The agent's tools that only read, named in the tool message of a call of unknown outcome. @default none */
  readOnlyTools?: readonly string[] | undefined;
}

/**
 * Ends a suspended (or abandoned running) run `failed` without resuming
 * it: the state as stored, whole (conversation, calls of its open step,
 * finished calls with their approvals, approvals spent), with status
 * `failed`, `error` and the next revision, in one save fenced by the claim
 * and the revision. Nothing the run recorded is lost: a question it waits
 * for stays recorded (an answer to it runs nothing now), and a call that had
 * started without a recorded end is settled as a resume settles it, as of
 * unknown outcome (`outcome_unknown`, in `finishedCalls` too, so listings
 * say so), and named in the error; it is never run again. A sealed state is checked against
 * `stateKey` and sealed again; without the key it is refused, nothing
 * written. Rejects with `RunConflictError` when the claim or revision no
 * longer holds, `ConfigurationError` (nothing read or written) when the
 * claim or the error is not one; resolves with the state saved.
 */
export async function endRunFailed(options: EndRunFailedOptions): Promise<RunState> {
  const { store, claim, stateKey } = options;
  const problems: string[] = [];
  if (typeof claim?.runId !== "string" || typeof claim.release !== "function") {
    problems.push(
      "failRun(): claim must be a RunClaim from the agent's run queue (claim(), claimNext() or claimDue()), held while the run is ended.",
    );
  }
  const { error } = options;
  if (typeof error?.name !== "string" || typeof error.message !== "string") {
    problems.push(
      "failRun(): error must be an object with a name and a message (strings), e.g. an Error; it becomes the run's error.",
    );
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  const { runId } = claim;
  const claimed = claim.state?.runId === runId ? claim.state : undefined;
  const state = claimed ?? (await store.load(runId));
  if (state.status !== "suspended" && state.status !== "running") {
    throw new RunNotResumableError(
      runId,
      state.status,
      `Run "${runId}" already ended with status ${state.status}; it is not ended failed again.`,
    );
  }
  const source = `run "${runId}" in the run store`;
  if (stateKey !== undefined) checkRunStateSeal(state, stateKey, source);
  else if (state.seal !== undefined) {
    throw new ConfigurationError(
      `Run "${runId}" cannot be ended failed here: its state is sealed, and no stateKey was given to seal the failed state with; end it from a process with the agent's stateKey.`,
    );
  }
  const started = state.pendingCalls.filter((call) => call.phase === "started");
  const unknown =
    started.length > 0
      ? ` Calls that had started and never recorded an end (outcome unknown, never run again): ${started.map((call) => `${call.toolName} (${call.toolCallId})`).join(", ")}.`
      : "";
  const unknownContent = (toolName: string) =>
    outcomeUnknownMessage(toolName, options.readOnlyTools ?? []);
  const failed: RunState = {
    ...state,
    pendingCalls: state.pendingCalls.map((call) =>
      call.phase === "started"
        ? {
            ...call,
            phase: "finished",
            status: "outcome_unknown",
            content: unknownContent(call.toolName),
          }
        : call,
    ),
    ...(started.length > 0
      ? {
          finishedCalls: [
            ...(state.finishedCalls ?? []),
            ...started.map((call) => ({
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              stepNumber: state.stepCount,
              status: "outcome_unknown" as const,
            })),
          ],
        }
      : {}),
    // A new revision: a save still expecting the one ended is refused.
    revision: state.revision + 1,
    status: "failed",
    updatedAt: new Date().toISOString(),
    error: {
      name: error.name,
      message: `${(options.redact ?? redactText)(error.message)}${unknown}`,
    },
  };
  const saved = stateKey === undefined ? failed : sealRunState(failed, stateKey);
  await store.save(saved, { claim, expectedRevision: state.revision });
  return saved;
}
