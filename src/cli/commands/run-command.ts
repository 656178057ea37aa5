import type { CliIo } from "../cli-io.js";
import { usageError } from "../command-error.js";
import { findCommandSpec } from "../command-specs.js";
import type { ExampleDefinition } from "../example-definition.js";
import { commandHelp } from "../help-text.js";
import type { RunArguments } from "../parse-arguments.js";
import { runExample } from "../run-example.js";

/**
 * `switchyard run <example>`: finds the example and runs it with
 * {@link runExample}, Ctrl-C aborting the run. Resolves to the exit status;
 * throws a usage `CommandError` for a missing or unknown example.
 */
export async function runCommand(
  exampleName: string | undefined,
  args: RunArguments,
  io: CliIo,
  examples: readonly ExampleDefinition[],
): Promise<number> {
  const names = examples.map((example) => example.name).join(", ");
  if (args.help) {
    io.stdout.write(commandHelp(findCommandSpec("run")!, examples));
    return 0;
  }
  if (exampleName === undefined) {
    throw usageError(
      `switchyard run needs an example name, one of: ${names} (switchyard examples describes them).`,
    );
  }
  const example = examples.find((candidate) => candidate.name === exampleName);
  if (!example) {
    throw usageError(`Unknown example "${exampleName}"; the examples are: ${names}.`);
  }
  return runExample(example, {
    task: args.task,
    approve: args.approve,
    noWait: args.noWait,
    allowEdits: args.allowEdits,
    budget: args.budget,
    approverDirectory: args.approverDirectory,
    startedBy: args.startedBy,
    json: args.json,
    io,
    handleSignals: true,
  });
}
