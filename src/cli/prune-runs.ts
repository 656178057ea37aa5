import { RunNotResumableError } from "../agent/durable/durable-errors.js";
import type { RunSummary } from "../agent/durable/run-store.js";
import { checkRunStateSeal } from "../agent/durable/seal-run-state.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";
import { withdrawQuestions } from "./cancel-run.js";
import type { CliIo } from "./cli-io.js";
import { CommandError } from "./command-error.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";
import { stateKeyOf } from "./open-state-directory.js";
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
 * it first). A suspended run's open questions are withdrawn first, as
 * `runs cancel` withdraws them. Prints the removed ids on stdout, and on
 * stderr a line per question withdrawn (or not) and a summary.
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
      await deleteRun(state, run, io);
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

/**
 * Deletes one run. A suspended one is claimed first, so no worker resumes
 * it meanwhile, and each question it waits for is withdrawn as
 * `runs cancel` withdraws it ({@link withdrawQuestions}), one line each on
 * stderr: nobody is left answering a question whose answer runs nothing.
 * Rejects with `RunNotResumableError` when another process holds the run.
 */
async function deleteRun(state: RunStorage, run: RunSummary, io: CliIo): Promise<void> {
  if (run.status !== "suspended") {
    await state.store.delete(run.runId);
    return;
  }
  const claim = await state.store.claim(run.runId);
  try {
    for (const line of await withdrawSavedQuestions(state, run.runId, io)) {
      io.stderr.write(`${line}\n`);
    }
    await state.store.delete(run.runId, { claim });
  } finally {
    await claim.release().catch(() => {});
  }
}

/**
 * The withdrawal lines of a suspended run's questions. With
 * `SWITCHYARD_STATE_KEY`, only a genuine saved state has its questions
 * withdrawn (as `runs cancel` refuses one edited by hand); the run is
 * deleted either way.
 */
async function withdrawSavedQuestions(
  state: RunStorage,
  runId: string,
  io: CliIo,
): Promise<string[]> {
  const saved = await state.store.load(runId);
  const stateKey = stateKeyOf(io.env);
  if (stateKey !== undefined) {
    try {
      checkRunStateSeal(saved, stateKey, `run "${runId}"`);
    } catch (error) {
      return [
        `note: the questions of run ${runId} were not withdrawn: ${escapeUntrustedText((error as Error).message)}; an answer to them runs nothing.`,
      ];
    }
  }
  return withdrawQuestions(saved, io);
}
