import type { Agent } from "../agent/agent.js";
import type { AgentStream } from "../agent/agent-stream.js";
import type { ApproverIdentity } from "../agent/approval/approver-directory.js";
import { newRunId } from "../agent/durable/run-id.js";
import type { RunBudget } from "../agent/run-budget.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { redactText } from "../internal/redact.js";
import { cliRunRecordFormat } from "./cli-run-records.js";
import { usageError } from "./command-error.js";
import type { ExampleDefinition } from "./example-definition.js";
import { cliRecordMetadataKey, type RunStorage } from "./open-run-storage.js";
import type { ResolvedServices } from "./resolve-services.js";

/** What {@link startSavedRun} needs besides the agent. */
export interface SavedRunContext {
  example: ExampleDefinition;
  task: string;
  state: RunStorage;
  resolved: ResolvedServices;
  signal: AbortSignal;
  /** The run's budget, when the command line gave one. */
  budget?: RunBudget | undefined;
  /** The run's id, as the command's header printed it. @default a new one */
  runId?: string | undefined;
  /** Who starts the run (`RunOptions.startedBy`), when an approver directory judges its answers. */
  startedBy?: string | ApproverIdentity | undefined;
}

/**
 * Starts a `--no-wait` run: records which example it belongs to first (so
 * even a run whose process dies can be resumed), then streams it with
 * `suspendOnApproval` under its id (a new one unless given). An agent that cannot suspend (no
 * approver able to read an answer later) is a usage error, and its record
 * is removed again.
 */
export async function startSavedRun(
  agent: Agent,
  context: SavedRunContext,
): Promise<{ runId: string; stream: AgentStream }> {
  const { example, task, state, resolved, signal, budget, startedBy } = context;
  const runId = context.runId ?? newRunId();
  const record = {
    format: cliRunRecordFormat,
    runId,
    example: example.name,
    task: redactText(task),
    createdAt: new Date().toISOString(),
    services: resolved.origins,
  } as const;
  await state.records.save(record);
  // In the run's metadata too, for a worker on another machine (a shared store has no cli/ folder).
  const metadata = { [cliRecordMetadataKey]: JSON.stringify(record) };
  try {
    return {
      runId,
      stream: agent.stream(task, {
        signal,
        suspendOnApproval: true,
        runId,
        metadata,
        budget,
        ...(startedBy !== undefined ? { startedBy } : {}),
      }),
    };
  } catch (error) {
    await state.records.delete(runId).catch(() => {});
    if (!(error instanceof ConfigurationError)) throw error;
    const problems = error.problems.map((problem) => problem.replace(/\.$/, "")).join("; ");
    throw usageError(
      `--no-wait does not apply to ${example.name}: its agent cannot stop at an approval and read the answer later (${problems}). Run it without --no-wait.`,
      { cause: error },
    );
  }
}
