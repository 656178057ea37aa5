import { cancelRun } from "../cancel-run.js";
import type { CliIo } from "../cli-io.js";
import { usageError } from "../command-error.js";
import { findCommandSpec, type RunsActionSpec, runsActionSpecs } from "../command-specs.js";
import { commandHelp } from "../help-text.js";
import { listRuns } from "../list-runs.js";
import type { RunsArguments } from "../parse-arguments.js";
import { pruneRuns } from "../prune-runs.js";
import { showRun } from "../show-run.js";
import { wakeRun } from "../wake-run.js";

/** `switchyard runs`: the saved runs, on stdout. Resolves to the exit status. */
export async function runsCommand(args: RunsArguments, io: CliIo): Promise<number> {
  return args.help ? writeRunsHelp(io) : listRuns(args, io);
}

/** `switchyard runs cancel <run-id>`: see {@link cancelRun}. Resolves to the exit status. */
export async function runsCancelCommand(
  runId: string | undefined,
  takeOver: boolean,
  help: boolean,
  io: CliIo,
): Promise<number> {
  if (help) return writeRunsHelp(io, "runs cancel");
  if (runId === undefined) {
    throw usageError(
      "switchyard runs cancel needs a run id; switchyard runs --status suspended lists the runs waiting for an answer.",
    );
  }
  return cancelRun(runId, { takeOver, io });
}

/** `switchyard runs wake <run-id>`: see {@link wakeRun}. Resolves to the exit status. */
export async function runsWakeCommand(
  runId: string | undefined,
  help: boolean,
  io: CliIo,
): Promise<number> {
  if (help) return writeRunsHelp(io);
  if (runId === undefined) {
    throw usageError(
      "switchyard runs wake needs a run id; switchyard runs --status suspended lists the runs waiting for an answer.",
    );
  }
  return wakeRun(runId, io);
}

/** `switchyard runs show <run-id> [--json]`: see {@link showRun}. Resolves to the exit status. */
export async function runsShowCommand(
  runId: string | undefined,
  json: boolean,
  help: boolean,
  io: CliIo,
): Promise<number> {
  if (help) return writeRunsHelp(io, "runs show");
  if (runId === undefined) {
    throw usageError("switchyard runs show needs a run id; switchyard runs lists the saved runs.");
  }
  return showRun(runId, json, io);
}

/** `switchyard runs prune --older-than AGE`: see {@link pruneRuns}. Resolves to the exit status. */
export async function runsPruneCommand(
  olderThan: string | undefined,
  help: boolean,
  io: CliIo,
): Promise<number> {
  return help ? writeRunsHelp(io, "runs prune") : pruneRuns(olderThan, io);
}

/** The help of `switchyard runs`, or of one of its actions. */
function writeRunsHelp(io: CliIo, action?: RunsActionSpec["name"]): number {
  const spec = action
    ? runsActionSpecs.find((candidate) => candidate.name === action)!
    : findCommandSpec("runs")!;
  io.stdout.write(commandHelp(spec, []));
  return 0;
}
