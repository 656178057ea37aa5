import { realpathSync } from "node:fs";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliIo, processIo } from "./cli-io.js";
import { runOptions } from "./command-specs.js";
import type { ExampleDefinition } from "./example-definition.js";
import { commandHelp } from "./help-text.js";
import { parseRunArguments } from "./parse-arguments.js";
import { reportError } from "./report-error.js";
import { runExample } from "./run-example.js";

/**
 * True when the module at `moduleUrl` (its `import.meta.url`) is the script
 * Node was started with, e.g. `npx tsx examples/order-report.ts`.
 */
export function isMainModule(moduleUrl: string, entry = process.argv[1]): boolean {
  if (entry === undefined || !moduleUrl.startsWith("file:")) return false;
  const modulePath = canonicalPath(fileURLToPath(moduleUrl));
  const entryPath = canonicalPath(resolve(entry));
  return modulePath === entryPath || withoutExtension(modulePath) === entryPath;
}

/**
 * The main guard of an example file: when the file is run on its own, runs
 * the example through the same runner as `switchyard run <name>` (same flags:
 * `--task`, `--approve`, `--no-wait`, `--json`, `--help`; same environment variables) and
 * sets `process.exitCode`. Does nothing when the file is imported.
 *
 * @example
 * // at the end of examples/order-report.ts
 * runIfMain(import.meta.url, orderReport);
 */
export function runIfMain(moduleUrl: string, example: ExampleDefinition): void {
  if (!isMainModule(moduleUrl)) return;
  void runExampleFromArguments(example, process.argv.slice(2), processIo(), moduleUrl).then(
    (exitCode) => {
      process.exitCode = exitCode;
    },
  );
}

async function runExampleFromArguments(
  example: ExampleDefinition,
  args: readonly string[],
  io: CliIo,
  moduleUrl: string,
): Promise<number> {
  const script = relative(process.cwd(), fileURLToPath(moduleUrl)) || example.name;
  try {
    const parsed = parseRunArguments(args, script);
    if (parsed.help) {
      io.stdout.write(
        commandHelp(
          {
            name: "run",
            usage: `npx tsx ${script} [--task TEXT] [--approve ask|browser|approve|deny] [--allow-edits] [--no-wait] [--max-tool-calls N] [--max-tokens N] [--extend-budget] [--json]`,
            summary: `${example.description} The same as: switchyard run ${example.name}`,
            options: runOptions,
            notes: [`Default task: ${example.defaultTask}`],
          },
          [],
        ),
      );
      return 0;
    }
    return await runExample(example, {
      task: parsed.task,
      approve: parsed.approve,
      noWait: parsed.noWait,
      allowEdits: parsed.allowEdits,
      budget: parsed.budget,
      json: parsed.json,
      io,
      handleSignals: true,
    });
  } catch (error) {
    return reportError(error, io);
  }
}

function canonicalPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function withoutExtension(path: string): string {
  return path.replace(/\.[cm]?[jt]s$/, "");
}
