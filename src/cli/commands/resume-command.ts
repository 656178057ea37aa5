import type { CliIo } from "../cli-io.js";
import { usageError } from "../command-error.js";
import { findCommandSpec } from "../command-specs.js";
import type { ExampleDefinition } from "../example-definition.js";
import { commandHelp } from "../help-text.js";
import type { ResumeArguments } from "../parse-arguments.js";
import { resumeRun } from "../resume-run.js";

/**
 * `switchyard resume <run-id>`: goes on with a saved run with
 * {@link resumeRun}, Ctrl-C aborting it. Resolves to the exit status; throws
 * a usage `CommandError` when the run id is missing.
 */
export async function resumeCommand(
  runId: string | undefined,
  args: ResumeArguments,
  io: CliIo,
  examples: readonly ExampleDefinition[],
): Promise<number> {
  if (args.help) {
    io.stdout.write(commandHelp(findCommandSpec("resume")!, []));
    return 0;
  }
  if (runId === undefined) {
    throw usageError(
      "switchyard resume needs a run id, as switchyard run --no-wait printed it; switchyard runs lists the saved runs.",
    );
  }
  return resumeRun(runId, examples, {
    json: args.json,
    takeOver: args.takeOver,
    allowEdits: args.allowEdits,
    approverDirectory: args.approverDirectory,
    io,
    handleSignals: true,
  });
}
