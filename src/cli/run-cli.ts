import { exampleDirectory, examples } from "../../examples/index.js";
import { type CliIo, processIo } from "./cli-io.js";
import { auditCommand } from "./commands/audit-command.js";
import { examplesCommand } from "./commands/examples-command.js";
import { resumeCommand } from "./commands/resume-command.js";
import { runCommand } from "./commands/run-command.js";
import {
  runsCancelCommand,
  runsCommand,
  runsPruneCommand,
  runsShowCommand,
  runsWakeCommand,
} from "./commands/runs-command.js";
import { simCommand } from "./commands/sim-command.js";
import { workerCommand } from "./commands/worker-command.js";
import { exitCodes } from "./exit-codes.js";
import { commandHelp, generalHelp } from "./help-text.js";
import { parseCommandLine } from "./parse-arguments.js";
import { readPackageVersion } from "./read-package-version.js";
import { redactCliOutput } from "./redact-cli-output.js";
import { reportError } from "./report-error.js";

/**
 * The `switchyard` command: reads `argv` (without `node` and the script),
 * runs the command, and resolves to the exit status. Never rejects: problems
 * are written to stderr as one line each. No secret of the environment is
 * ever written.
 */
export async function runCli(argv: readonly string[], given: CliIo = processIo()): Promise<number> {
  const io = redactCliOutput(given);
  try {
    const line = parseCommandLine(argv);
    switch (line.command) {
      case "help": {
        const text = line.topic ? commandHelp(line.topic, examples) : generalHelp(examples);
        (line.requested ? io.stdout : io.stderr).write(text);
        return line.requested ? exitCodes.completed : exitCodes.usage;
      }
      case "version":
        io.stdout.write(`switchyard ${readPackageVersion()}\n`);
        return exitCodes.completed;
      case "examples":
        return examplesCommand(line.help, io, examples, exampleDirectory);
      case "run":
        return await runCommand(line.example, line.arguments, io, examples);
      case "runs":
        return await runsCommand(line.arguments, io);
      case "runs-cancel":
        return await runsCancelCommand(line.runId, line.takeOver, line.help, io);
      case "runs-wake":
        return await runsWakeCommand(line.runId, line.help, io);
      case "runs-show":
        return await runsShowCommand(line.runId, line.json, line.help, io);
      case "runs-prune":
        return await runsPruneCommand(line.olderThan, line.help, io);
      case "audit":
        return await auditCommand(line, io);
      case "resume":
        return await resumeCommand(line.runId, line.arguments, io, examples);
      case "worker":
        return await workerCommand(line.arguments, io, examples);
      case "sim":
        // The simulators' own keys and tokens are printed on purpose, to be copied.
        return await simCommand(line.arguments, given, untilStopSignal);
      case "mcp": {
        // Loaded only for this command: the MCP SDK is heavy. Stdout carries MCP messages
        // (their tool results already redacted), and a generated token is printed to be copied.
        const { mcpCommand } = await import("./commands/mcp-command.js");
        return await mcpCommand(line.arguments, given, untilStopSignal);
      }
    }
  } catch (error) {
    return reportError(error, io);
  }
}

/** Resolves with the name of the first SIGINT or SIGTERM. */
function untilStopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (name: NodeJS.Signals) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(name);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}
