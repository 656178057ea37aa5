import { ConfigurationError } from "../errors/configuration-error.js";
import type { AgentSettings } from "./agent-options.js";
import { positiveInteger } from "./agent-options.js";
import { findStartedByProblem } from "./approval/run-starter.js";
import { RunNotFoundError, RunStateError } from "./durable/durable-errors.js";
import { findRunIdProblem, newRunId } from "./durable/run-id.js";
import { RunJournal } from "./durable/run-journal.js";
import type { RunClaim } from "./durable/run-queue.js";
import type { RunState } from "./durable/run-state.js";
import { neverAborted } from "./never-aborted.js";
import { readRunBudget, startRunBudget } from "./run-budget.js";
import type { ResumeOptions, RunOptions } from "./run-options.js";
import { type AgentInput, startConversation } from "./start-conversation.js";

/** Everything a loop needs, prepared before it starts. */
export interface PreparedRun {
  journal: RunJournal;
  maxSteps: number;
  /** The caller's signal, or {@link neverAborted}. */
  signal: AbortSignal;
  suspendOnApproval: boolean;
  /** Held while the loop runs, released when it ends. */
  claim?: RunClaim | undefined;
}

/**
 * Checks a new run's input and options and builds its journal; throws one
 * ConfigurationError listing every problem. Every run has an id (`runId`,
 * or a new one) and goes to the agent's run store (its own in-memory one
 * when it was given none).
 */
export function prepareRun(
  settings: AgentSettings,
  input: AgentInput,
  options: RunOptions,
): PreparedRun {
  const problems = checkCommonOptions(options);
  const { approver } = settings;
  if (options.suspendOnApproval !== undefined && typeof options.suspendOnApproval !== "boolean") {
    problems.push("suspendOnApproval must be true or false.");
  }
  const suspendOnApproval = options.suspendOnApproval === true;
  if (suspendOnApproval && approver === undefined) {
    problems.push("suspendOnApproval needs an approver; configure one in the agent options.");
  }
  if (options.runId !== undefined) {
    const problem = findRunIdProblem(options.runId);
    if (problem) problems.push(`${problem}.`);
  }
  const { metadata } = options;
  if (
    metadata !== undefined &&
    (typeof metadata !== "object" ||
      metadata === null ||
      Array.isArray(metadata) ||
      Object.values(metadata).some((value) => typeof value !== "string"))
  ) {
    problems.push("metadata must be an object whose values are strings.");
  }
  if (options.startedBy !== undefined) {
    const problem = findStartedByProblem(options.startedBy);
    if (problem !== undefined) problems.push(`startedBy ${problem}.`);
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  const messages = startConversation(input, settings.instructions);
  const maxSteps = options.maxSteps ?? settings.maxSteps;
  return {
    journal: new RunJournal({
      runId: options.runId ?? newRunId(),
      store: settings.runStore,
      inProcess: settings.ownRunStore !== undefined,
      endState: suspendOnApproval || options.runId !== undefined,
      maxSteps,
      secrets: settings.secrets,
      stateKey: settings.stateKey,
      messages,
      metadata,
      startedBy: options.startedBy,
      budget: startRunBudget(options.budget ?? settings.budget, undefined),
    }),
    maxSteps,
    signal: options.signal ?? neverAborted,
    suspendOnApproval,
  };
}

/**
 * Claims a new durable run in the agent's run queue (when it has one) and,
 * for an id the caller chose, checks the store has no run by that id: a
 * ConfigurationError otherwise, so a run never overwrites another's record.
 * Undefined when there is neither to do (no queue, a new id): nothing to wait for.
 */
export function claimNewRun(
  settings: AgentSettings,
  prepared: PreparedRun,
  idWasGiven: boolean,
): Promise<void> | undefined {
  if (settings.runQueue === undefined && !idWasGiven) return undefined;
  return claimAndCheck(settings, prepared, idWasGiven);
}

async function claimAndCheck(
  settings: AgentSettings,
  prepared: PreparedRun,
  idWasGiven: boolean,
): Promise<void> {
  const { runStore: store, runQueue: queue } = settings;
  const runId = prepared.journal.runId;
  const claim = await queue?.claim(runId);
  try {
    if (idWasGiven) await checkRunIdFree(store.load.bind(store), runId);
  } catch (error) {
    await claim?.release().catch(() => {});
    throw error;
  }
  prepared.claim = claim;
  prepared.journal.claim = claim;
}

async function checkRunIdFree(
  load: (runId: string) => Promise<RunState>,
  runId: string,
): Promise<void> {
  let existing: RunState;
  try {
    existing = await load(runId);
  } catch (error) {
    if (error instanceof RunNotFoundError) return;
    if (error instanceof RunStateError) {
      throw new ConfigurationError(
        `Run id "${runId}" names a state in the run store that cannot be read (${error.message}); choose another id, or remove that state.`,
        { cause: error },
      );
    }
    throw error;
  }
  throw new ConfigurationError(
    `Run id "${runId}" is already in the run store (status ${existing.status}); choose another id, resume that run, or delete it from the store first.`,
  );
}

/** The problems of the options every run and resume takes: `maxSteps` and `signal`. */
export function checkCommonOptions(options: RunOptions | ResumeOptions): string[] {
  const problems: string[] = [];
  positiveInteger(options.maxSteps, 1, "maxSteps", problems);
  readRunBudget(options.budget, problems);
  const signal = options.signal as Partial<AbortSignal> | undefined;
  if (
    signal !== undefined &&
    (typeof signal?.aborted !== "boolean" || typeof signal.addEventListener !== "function")
  ) {
    problems.push("signal must be an AbortSignal.");
  }
  return problems;
}
