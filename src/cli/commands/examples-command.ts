import type { CliIo } from "../cli-io.js";
import { findCommandSpec } from "../command-specs.js";
import type { ExampleDefinition } from "../example-definition.js";
import { commandHelp } from "../help-text.js";

/** `switchyard examples`: each example's name, description and default task, on stdout. */
export function examplesCommand(
  help: boolean,
  io: CliIo,
  examples: readonly ExampleDefinition[],
): number {
  if (help) {
    io.stdout.write(commandHelp(findCommandSpec("examples")!, examples));
    return 0;
  }
  const width = Math.max(...examples.map((example) => example.name.length)) + 2;
  const lines = examples.flatMap((example) => [
    `${example.name.padEnd(width)}${example.description}`,
    `${" ".repeat(width)}default task: ${example.defaultTask}`,
  ]);
  lines.push(
    "",
    "Run one with: switchyard run <example> [--task TEXT] [--approve ask|browser|approve|deny] [--no-wait] [--json]",
    "or on its own: npx tsx examples/<example>.ts",
    "",
  );
  io.stdout.write(lines.join("\n"));
  return 0;
}
