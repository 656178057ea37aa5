import type { CliIo } from "../cli-io.js";
import { findCommandSpec } from "../command-specs.js";
import { commandHelp } from "../help-text.js";
import { listRuns } from "../list-runs.js";
import type { RunsArguments } from "../parse-arguments.js";

/** `switchyard runs`: the saved runs, on stdout. Resolves to the exit status. */
export async function runsCommand(args: RunsArguments, io: CliIo): Promise<number> {
  if (args.help) {
    io.stdout.write(commandHelp(findCommandSpec("runs")!, []));
    return 0;
  }
  return listRuns(args, io);
}
