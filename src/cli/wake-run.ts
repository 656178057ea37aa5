import type { CliIo } from "./cli-io.js";
import { usageError } from "./command-error.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { loadSavedRun } from "./load-saved-run.js";
import { openRunStorage } from "./open-run-storage.js";

/**
 * `switchyard runs wake <run-id>`: makes a suspended run due now
 * (`RunQueue.wake`), for when its answer came and nobody should wait for
 * the next check: an idle worker on PostgreSQL takes it at once. A run that
 * is not suspended, or that a worker holds, is a usage error saying so.
 * Resolves to the exit status.
 */
export async function wakeRun(runId: string, io: CliIo): Promise<ExitCode> {
  const storage = await openRunStorage(io.env);
  try {
    const state = await loadSavedRun(storage, runId, "woken");
    if (state.status !== "suspended") {
      throw usageError(
        `Run "${runId}" is ${state.status}, not suspended: there is nothing to wake (switchyard runs show ${runId} says what it did).`,
      );
    }
    if (!(await storage.store.wake(runId))) {
      throw usageError(
        `Run "${runId}" is held by a worker right now; it sets the run's next check when it lets it go. Try again in a moment.`,
      );
    }
    io.stderr.write(`Run "${runId}" is due now: a worker resumes it.\n`);
    io.stdout.write(`${runId}\n`);
    return exitCodes.completed;
  } finally {
    await storage.close().catch(() => {});
  }
}
