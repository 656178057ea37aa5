import { ConfigurationError } from "../../errors/configuration-error.js";
import type { AgentSettings } from "../agent-options.js";
import { neverAborted } from "../never-aborted.js";
import { checkCommonOptions, type PreparedRun } from "../prepare-run.js";
import { startRunBudget } from "../run-budget.js";
import type { ResumeOptions } from "../run-options.js";
import { checkResumable } from "./check-resumable.js";
import { checkStateIsLatest } from "./check-state-is-latest.js";
import { RunNotFoundError, RunNotResumableError } from "./durable-errors.js";
import { parseRunState } from "./parse-run-state.js";
import { findRunIdProblem } from "./run-id.js";
import { RunJournal } from "./run-journal.js";
import type { RunClaim } from "./run-queue.js";
import type { RunState } from "./run-state.js";
import { checkRunStateSeal } from "./seal-run-state.js";

/** A resume whose options were checked: the run's id, and its state when one was given. */
export interface ResumeRequest {
  runId: string;
  given: RunState | undefined;
  options: ResumeOptions;
}

/**
 * The checks a resume can make at once: options, the run id (a run store
 * is needed to resume by id), and a given state (readable, resumable).
 * Throws ConfigurationError, RunStateError or RunNotResumableError.
 */
export function checkResumeRequest(
  settings: AgentSettings,
  stateOrRunId: RunState | string,
  options: ResumeOptions,
): ResumeRequest {
  const problems = checkCommonOptions(options);
  for (const name of ["suspendOnApproval", "takeOver"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "boolean") {
      problems.push(`${name} must be true or false.`);
    }
  }
  const { claim } = options;
  if (
    claim !== undefined &&
    (typeof claim?.runId !== "string" || typeof claim.release !== "function")
  ) {
    problems.push(
      "claim must be a RunClaim from the agent's run queue (claim(), claimNext() or claimDue()).",
    );
  }
  if (options.suspendOnApproval === true && settings.approver === undefined) {
    problems.push("suspendOnApproval needs an approver; configure one in the agent options.");
  }
  if (typeof stateOrRunId === "string") {
    const problem = findRunIdProblem(stateOrRunId);
    if (problem) problems.push(`${problem}.`);
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  if (typeof stateOrRunId === "string") return { runId: stateOrRunId, given: undefined, options };
  const given = parseRunState(stateOrRunId);
  if (settings.stateKey !== undefined) {
    checkRunStateSeal(given, settings.stateKey, "the state given");
  }
  checkResumable(given, resumeChecks(settings, given, options));
  return { runId: given.runId, given, options };
}

/**
 * Claims the run (when the agent has a run queue), reads its state from the store,
 * checks it can go on here, and prepares the loop. The run goes on from
 * the stored state: a state given must have the stored revision (an older
 * or newer one could run again a call the other records), and a state
 * given that says it was stored (revision above 0) is refused when the
 * store no longer holds the run; but a state given that the agent's own
 * in-memory store does not hold (it was saved by another agent) is taken
 * as it is, and kept there. The claim is released if anything fails.
 */
export async function openResumedRun(
  settings: AgentSettings,
  request: ResumeRequest,
): Promise<PreparedRun> {
  const { runId, options } = request;
  const store = settings.runStore;
  const given = options.claim;
  if (given && given.runId !== runId) {
    throw new ConfigurationError(
      `The claim given is on run "${given.runId}", not "${runId}"; pass the claim of the run resumed.`,
    );
  }
  const claim =
    given ?? (await settings.runQueue?.claim(runId, { takeOver: options.takeOver === true }));
  const takeOver = options.takeOver === true || claim?.recovered === true;
  try {
    let state = request.given;
    // A claim that carries the run's state spares loading it again.
    const claimed = claim?.state?.runId === runId ? claim.state : undefined;
    const stored =
      claimed ??
      (await loadIfPresent(
        store.load.bind(store),
        runId,
        state !== undefined || settings.ownRunStore !== undefined,
      ));
    // A state given that the agent's own in-memory store does not hold was
    // saved elsewhere (another process's agent): it goes on from the state.
    const fromGiven = settings.ownRunStore !== undefined && stored === undefined;
    if (state && !fromGiven) checkGivenAgainstStored(runId, state, stored);
    state = stored ?? state;
    if (!state) {
      throw new ConfigurationError(
        `Run "${runId}" is not in this agent's memory (it has no runStore, and the run ended or was started by another agent); pass the saved RunState instead, or configure the store it was saved in.`,
      );
    }
    if (settings.stateKey !== undefined) {
      const source = fromGiven ? "the state given" : `run "${runId}" in the run store`;
      checkRunStateSeal(state, settings.stateKey, source);
      await checkStateIsLatest(state, store, source);
    }
    checkResumable(state, resumeChecks(settings, state, { ...options, takeOver }));
    if (claim) checkNoCallInFlight(settings, state, claim);
    if (fromGiven) await store.save(state, { expectedRevision: 0, claim });
    const maxSteps = options.maxSteps ?? state.maxSteps;
    return {
      journal: new RunJournal({
        runId,
        store,
        inProcess: settings.ownRunStore !== undefined,
        endState: true,
        claim,
        maxSteps,
        secrets: settings.secrets,
        stateKey: settings.stateKey,
        messages: [...state.messages],
        resumeFrom: state,
        budget: startRunBudget(options.budget, state.budget),
      }),
      maxSteps,
      signal: options.signal ?? neverAborted,
      suspendOnApproval: options.suspendOnApproval ?? settings.approver !== undefined,
      // A claim the caller gave stays the caller's to release.
      claim: given ? undefined : claim,
    };
  } catch (error) {
    if (!given) await claim?.release().catch(() => {});
    throw error;
  }
}

/**
 * Throws `RunNotResumableError` (with `hint.retryAfterMs`) while a call the
 * run's previous holder started may still act: that process's claim ended
 * (lapsed, taken over, released) less than the tool's timeout ago, so its
 * request could still be on the wire, or about to be sent. Reconciling now
 * could act beside it; the call is neither run nor reported until then.
 */
function checkNoCallInFlight(settings: AgentSettings, state: RunState, claim: RunClaim): void {
  const since = claim.sincePreviousHolderMs;
  if (since === undefined) return;
  const started = state.pendingCalls.filter((call) => call.phase === "started");
  const waitMs = Math.max(
    0,
    ...started.map(
      (call) => (settings.tools.get(call.toolName)?.timeoutMs ?? settings.toolTimeoutMs) - since,
    ),
  );
  if (waitMs <= 0) return;
  const names = [...new Set(started.map((call) => call.toolName))].join(", ");
  throw new RunNotResumableError(
    state.runId,
    state.status,
    `Run "${state.runId}" is not resumed yet: a call of ${names} its previous holder started may still be in flight (${since >= 0 ? `that holder stopped acting on the run ${Math.round(since)} ms ago, and the tool's timeout has not passed since` : `that holder's claim was taken over and lets it act ${Math.round(-since)} ms more, and the tool's timeout after that`}). The call is neither run again nor reported until then; resume again in ${Math.ceil(waitMs / 1000)} s.`,
    { retryAfterMs: Math.ceil(waitMs) },
  );
}

/** Throws unless the state given is the one the store holds (or one never stored). */
function checkGivenAgainstStored(
  runId: string,
  given: RunState,
  stored: RunState | undefined,
): void {
  if (!stored) {
    if (given.revision === 0) return;
    throw new RunNotResumableError(
      runId,
      given.status,
      `The run store holds no run "${runId}", though the state given was saved in a run store (revision ${given.revision}): it was deleted, or this is another store. It is not resumed, since a call it approved may have run already; start a new run with state.messages as the input.`,
      { startNewRun: true },
    );
  }
  if (stored.revision !== given.revision) {
    const final = stored.status !== "suspended" && stored.status !== "running";
    throw new RunNotResumableError(
      runId,
      stored.status,
      `The run store holds another state of run "${runId}" (revision ${stored.revision}, status ${stored.status}, saved ${stored.updatedAt}) than the one given (revision ${given.revision}); ${final ? "the run already ended, so start a new run with state.messages as the input" : "resume it by id to go on from where it is"}.`,
      final ? { startNewRun: true } : { resumeById: true },
    );
  }
}

function resumeChecks(settings: AgentSettings, state: RunState, options: ResumeOptions) {
  return {
    approver: settings.approver,
    takeOver: options.takeOver === true,
    maxSteps: options.maxSteps ?? state.maxSteps,
  };
}

async function loadIfPresent(
  load: (runId: string) => Promise<RunState>,
  runId: string,
  mayBeMissing: boolean,
): Promise<RunState | undefined> {
  try {
    return await load(runId);
  } catch (error) {
    if (mayBeMissing && error instanceof RunNotFoundError) return undefined;
    throw error;
  }
}
