import type { CliIo } from "../cli-io.js";
import { findCommandSpec } from "../command-specs.js";
import type { ExampleDefinition } from "../example-definition.js";
import { commandHelp } from "../help-text.js";
import type { WorkerArguments } from "../parse-arguments.js";
import { workRuns } from "../work-runs.js";

/**
 * `switchyard worker`: resumes due runs with {@link workRuns} until
 * SIGTERM or Ctrl-C. Resolves to the exit status.
 */
export async function workerCommand(
  args: WorkerArguments,
  io: CliIo,
  examples: readonly ExampleDefinition[],
): Promise<number> {
  if (args.help) {
    io.stdout.write(commandHelp(findCommandSpec("worker")!, []));
    return 0;
  }
  return workRuns(examples, {
    concurrency: args.concurrency,
    recheckAfterMs: args.recheckAfterMs,
    firstRecheckAfterMs: args.firstRecheckAfterMs,
    checksPerSecond: args.checksPerSecond,
    pollIntervalMs: args.pollIntervalMs,
    leaseMs: args.leaseMs,
    maxAttempts: args.maxAttempts,
    maxRetryAfterMs: args.maxRetryAfterMs,
    pruneAfterMs: args.pruneAfterMs,
    allowEdits: args.allowEdits,
    approverDirectory: args.approverDirectory,
    io,
    handleSignals: true,
  });
}
