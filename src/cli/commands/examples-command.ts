import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import type { CliIo } from "../cli-io.js";
import { findCommandSpec } from "../command-specs.js";
import type { ExampleDefinition } from "../example-definition.js";
import { commandHelp } from "../help-text.js";

/** `switchyard examples`: each example's name, description and default task, on stdout. */
export function examplesCommand(
  help: boolean,
  io: CliIo,
  examples: readonly ExampleDefinition[],
  /** Where the example files are (`exampleDirectory` of `switchyard-agents/examples`). */
  directory: string,
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
    `or on its own: ${standaloneCommand(directory)}`,
    "",
  );
  io.stdout.write(lines.join("\n"));
  return 0;
}

/**
 * How to run an example file on its own, where this switchyard is: the
 * TypeScript sources with tsx in a clone, the compiled files with node where
 * the package is installed (`node_modules/switchyard-agents/dist/examples/`).
 */
function standaloneCommand(directory: string): string {
  const shown = relative(process.cwd(), directory) || ".";
  if (existsSync(join(directory, "callback-cleanup.ts"))) return `npx tsx ${shown}/<example>.ts`;
  return `node ${shown}/<example>.js`;
}
