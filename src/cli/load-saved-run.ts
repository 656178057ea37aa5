import { RunNotFoundError, RunStateError, RunStoreError } from "../agent/durable/durable-errors.js";
import { isRunId } from "../agent/durable/run-id.js";
import type { RunState } from "../agent/durable/run-state.js";
import { CommandError, usageError } from "./command-error.js";
import { exitCodes } from "./exit-codes.js";
import type { RunStorage } from "./open-run-storage.js";

/**
 * The saved state, or a one-line usage error saying what is wrong with the id
 * or the file; `purpose` says what the run was to be (`resumed`, `cancelled`).
 */
export async function loadSavedRun(
  directory: RunStorage,
  runId: string,
  purpose = "resumed",
): Promise<RunState> {
  if (!isRunId(runId)) {
    throw usageError(
      `"${runId}" is not a run id (ids look like run_20250512T093000Z_1a2b3c4d); switchyard runs lists the saved runs.`,
    );
  }
  try {
    return await directory.store.load(runId);
  } catch (error) {
    if (error instanceof RunNotFoundError) {
      throw usageError(
        `No run "${runId}" in ${directory.where} (${directory.variable}); switchyard runs lists the saved runs.`,
        { cause: error },
      );
    }
    if (error instanceof RunStateError) {
      throw usageError(
        `Run "${runId}" cannot be ${purpose}: its saved state ${error.source} is unreadable (${error.problems.join("; ")}); restore the file, or delete it to drop the run.`,
        { cause: error },
      );
    }
    if (error instanceof RunStoreError) {
      throw new CommandError(error.message, exitCodes.notCompleted, { cause: error });
    }
    throw error;
  }
}
