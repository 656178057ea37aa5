import { RunNotResumableError } from "../agent/durable/durable-errors.js";
import type { RunSummary } from "../agent/durable/run-store.js";
import type { CliIo } from "./cli-io.js";
import { CommandError } from "./command-error.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";
import { parseDuration } from "./parse-duration.js";

/**
 * Reads a `--older-than` value ({@link parseDuration}: `30m`, `12h`, `7d`,
 * `2w`, ...), in milliseconds. Throws a usage error naming the forms it takes.
 */
export function parseAge(text: string | undefined): number {
  return parseDuration(text, "switchyard runs prune --older-than");
}

/**
 * `switchyard runs prune --older-than AGE`: removes the saved runs (their
 * states, execution records and the command's record of them) last updated
 * longer ago than the age, whatever their status but `running` (a run
 * marked running may have a process on it: `runs cancel --take-over` ends
 * it first). Prints the removed ids on stdout and a summary on stderr.
 */
export async function pruneRuns(olderThan: string | undefined, io: CliIo): Promise<ExitCode> {
  const age = parseAge(olderThan);
  const storage = await openRunStorage(io.env);
  try {
    return await pruneStoredRuns(storage, age, olderThan ?? "", io);
  } finally {
    await storage.close();
  }
}

async function pruneStoredRuns(
  state: RunStorage,
  age: number,
  ageText: string,
  io: CliIo,
): Promise<ExitCode> {
  const old: RunSummary[] = [];
  try {
    let after: string | undefined;
    do {
      // The store's clock decides the age, not this machine's (nor the saving worker's).
      const page = await state.store.list({
        limit: 1000,
        olderThanMs: age,
        ...(after ? { after } : {}),
      });
      old.push(...page.runs);
      for (const error of page.unreadable) {
        io.stderr.write(
          `warning: ${error.source} cannot be read and was left: ${error.problems.join("; ")}\n`,
        );
      }
      after = page.nextCursor;
    } while (after !== undefined);
  } catch (error) {
    throw new CommandError((error as Error).message, exitCodes.notCompleted, { cause: error });
  }
  const running = old.filter((run) => run.status === "running");
  const removed: string[] = [];
  for (const run of old.filter((candidate) => candidate.status !== "running")) {
    try {
      await state.store.delete(run.runId);
    } catch (error) {
      if (!(error instanceof RunNotResumableError)) throw error;
      io.stderr.write(`note: ${error.message} It was left.\n`);
      continue;
    }
    await state.records.delete(run.runId);
    removed.push(run.runId);
    io.stdout.write(`${run.runId}\n`);
  }
  for (const run of running) {
    io.stderr.write(
      `note: run "${run.runId}" is marked running (last saved ${run.updatedAt}) and was left; if its process is gone, end it with switchyard runs cancel ${run.runId} --take-over.\n`,
    );
  }
  io.stderr.write(
    `Removed ${removed.length} ${removed.length === 1 ? "run" : "runs"} last updated more than ${ageText.trim()} ago from ${state.where}.\n`,
  );
  return exitCodes.completed;
}
