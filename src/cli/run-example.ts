import type { AgentEvent } from "../agent/agent-events.js";
import type { RunResult } from "../agent/run-result.js";
import { createLogger, type Logger, silentLogger } from "../internal/logger.js";
import type { AnswerFunction, AnswerMode } from "../simulators/messaging/answer-mode.js";
import {
  type TerminalAnswerer,
  terminalAnswerer,
} from "../simulators/messaging/terminal-answerer.js";
import {
  type ReasonerScenarioName,
  reasonerScenarios,
} from "../simulators/reasoner/reasoner-scenarios.js";
import { type ApprovalMode, defaultApprovalMode } from "./approval-mode.js";
import { buildRunReport, type RunReportContext } from "./build-run-report.js";
import { checkServices } from "./check-services.js";
import { type CliIo, processIo } from "./cli-io.js";
import { usageError } from "./command-error.js";
import { describeFailure } from "./describe-failure.js";
import type { ExampleDefinition, ExampleServiceName } from "./example-definition.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { formatDuration } from "./format-text.js";
import { readServiceSettings, serviceNames, serviceVariables } from "./read-service-settings.js";
import { ProgressRenderer } from "./render-progress.js";
import { reportError } from "./report-error.js";
import { type ResolvedServices, resolveServices } from "./resolve-services.js";

/** Options of {@link runExample}: the flags of `switchyard run`, and where to read and write. */
export interface RunExampleOptions {
  /** @default the example's `defaultTask` */
  task?: string | undefined;
  /**
   * How the messaging simulator answers approval requests. Only for the
   * simulator: with `SWITCHYARD_MESSAGING_URL` set, `approve` and `deny` are
   * usage errors. @default `ask` on a terminal, `deny` otherwise
   */
  approve?: ApprovalMode | undefined;
  /** Print the run's report as one JSON object on stdout. @default false */
  json?: boolean | undefined;
  /** @default the process's streams and environment */
  io?: CliIo | undefined;
  /** Stops the run (and a pending approval). */
  signal?: AbortSignal | undefined;
  /** Ctrl-C / SIGTERM abort the run (a second one exits at once). @default false */
  handleSignals?: boolean | undefined;
  /** How long the approver waits for an answer. @default 600000 (10 minutes) */
  approvalTimeoutMs?: number | undefined;
}

const allServices: readonly ExampleServiceName[] = ["orders", "docs", "messaging"];

/**
 * Runs an example the way `switchyard run` does: each service is its
 * simulator unless the environment names it, progress goes to stderr as the
 * run goes, and the answer (or with `json`, the whole report) to stdout.
 * Resolves to the exit status and never rejects: a failure is written to
 * stderr as one line per problem (with the stack when `SWITCHYARD_DEBUG=1`).
 *
 * @example
 * process.exitCode = await runExample(callbackCleanup, { approve: "deny" });
 */
export async function runExample(
  example: ExampleDefinition,
  options: RunExampleOptions = {},
): Promise<ExitCode> {
  const io = options.io ?? processIo();
  const controller = new AbortController();
  const signal = options.signal
    ? AbortSignal.any([options.signal, controller.signal])
    : controller.signal;
  const removeSignalHandlers = options.handleSignals ? handleSignals(controller, io) : () => {};
  let answerer: TerminalAnswerer | undefined;
  let resolved: ResolvedServices | undefined;
  let progress: ProgressRenderer | undefined;
  try {
    const task = options.task ?? example.defaultTask;
    const settings = readServiceSettings(io.env);
    for (const note of settings.notes) io.stderr.write(`note: ${note}\n`);
    if (options.approve !== undefined && options.approve !== "ask" && settings.messaging) {
      throw usageError(
        `--approve ${options.approve} only applies to the messaging simulator: with SWITCHYARD_MESSAGING_URL set, the person behind SWITCHYARD_APPROVER_LINK answers each request. Leave --approve out (or use --approve ask).`,
      );
    }
    const mode = options.approve ?? defaultApprovalMode(io);
    // When asked here, the question itself lists what the approval is about.
    progress = new ProgressRenderer({ stream: io.stderr, approvalDetails: mode !== "ask" });
    if (mode === "ask") answerer = terminalAnswerer({ input: io.stdin, output: io.stderr });
    const answer: AnswerMode = answerer
      ? askThroughProgress(answerer, progress, io)
      : (mode as Exclude<ApprovalMode, "ask">);
    resolved = await resolveServices({
      settings,
      scenario: scenarioFor(example.name),
      answer,
      logger: createRunLogger(io.env, io.stderr),
      approvalTimeoutMs: options.approvalTimeoutMs,
    });
    writeHeader(io, example, task, resolved, settings.messaging ? undefined : mode);
    await checkServices(resolved, example.uses ?? allServices, signal);

    const agent = example.createAgent(resolved.services);
    const startedAt = performance.now();
    const approvalWaits = new Map<string, number>();
    const approvalStarts = new Map<string, number>();
    const stream = agent.stream(task, { signal });
    for await (const event of stream) {
      trackApprovalWait(event, approvalStarts, approvalWaits);
      progress.handle(event);
    }
    const result = await stream.result;
    progress.close();
    return writeOutcome(result, {
      io,
      json: options.json === true,
      report: {
        example: example.name,
        task,
        durationMs: performance.now() - startedAt,
        origins: resolved.origins,
        approvalWaits,
      },
    });
  } catch (error) {
    progress?.close();
    return reportError(error, io, resolved ? { origins: resolved.origins } : {});
  } finally {
    answerer?.close();
    removeSignalHandlers();
    await resolved?.close();
  }
}

/**
 * Writes how the run ended: a summary line on stderr (with the reason when it
 * did not complete), then the answer or the JSON report on stdout.
 */
function writeOutcome(
  result: RunResult,
  options: { io: CliIo; json: boolean; report: RunReportContext },
): ExitCode {
  const { io, report } = options;
  const failure =
    result.status === "completed"
      ? undefined
      : describeFailure(result.error ?? new Error(`The run ended with status ${result.status}.`), {
          origins: report.origins,
        });
  const calls = result.steps.reduce((sum, step) => sum + step.toolCalls.length, 0);
  const summary = `${plural(result.steps.length, "step")}, ${plural(calls, "tool call")}, ${result.usage.totalTokens} tokens, ${formatDuration(report.durationMs)}`;
  io.stderr.write(
    failure
      ? `run ${result.status} (${summary}): ${failure.message}\n`
      : `run completed (${summary})\n`,
  );
  if (options.json) {
    io.stdout.write(`${JSON.stringify(buildRunReport(result, report))}\n`);
  } else if (result.output !== "" && !(io.stdout.isTTY && io.stderr.isTTY)) {
    // On a terminal the answer was just shown as it streamed; elsewhere stdout carries it.
    io.stdout.write(`${result.output}\n`);
  }
  return failure ? failure.exitCode : exitCodes.completed;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The reasoner simulator plays the example of the same name, or picks by the task. */
function scenarioFor(name: string): ReasonerScenarioName {
  return Object.hasOwn(reasonerScenarios, name) ? (name as ReasonerScenarioName) : "auto";
}

/** The terminal answerer, with the progress line paused while the person is asked. */
function askThroughProgress(
  answerer: TerminalAnswerer,
  progress: ProgressRenderer,
  io: CliIo,
): AnswerFunction {
  return async (question) => {
    progress.suspend();
    try {
      return await answerer(question);
    } finally {
      // A terminal echoes the person's Enter; piped input leaves the prompt's line open.
      if (io.stdin.isTTY !== true) io.stderr.write("\n");
      progress.resume();
    }
  };
}

function createRunLogger(env: CliIo["env"], destination: NodeJS.WritableStream): Logger {
  const level = env.SWITCHYARD_LOG_LEVEL?.trim();
  if (!level) return silentLogger();
  const levels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
  if (!levels.includes(level)) {
    throw usageError(`SWITCHYARD_LOG_LEVEL must be one of ${levels.join(", ")}; got "${level}".`);
  }
  return createLogger({ level, destination });
}

function writeHeader(
  io: CliIo,
  example: ExampleDefinition,
  task: string,
  resolved: ResolvedServices,
  simulatedMode: ApprovalMode | undefined,
): void {
  const lines = [`switchyard run ${example.name}`, `task: ${task}`];
  for (const service of serviceNames) {
    const origin = resolved.origins[service];
    const source = origin.simulated ? "simulator" : serviceVariables[service].url;
    lines.push(`  ${service.padEnd(10)} ${source} ${origin.url}`);
  }
  const approvals =
    simulatedMode === undefined
      ? `the person behind SWITCHYARD_APPROVER_LINK ${resolved.services.approverLinkId}`
      : simulatedMode === "ask"
        ? "asked at this terminal (through the messaging simulator)"
        : `always ${simulatedMode === "approve" ? "approved" : "denied"} by the messaging simulator (--approve ${simulatedMode})`;
  lines.push(`  approvals  ${approvals}`, "");
  io.stderr.write(lines.join("\n"));
  io.stderr.write("\n");
}

function trackApprovalWait(
  event: AgentEvent,
  starts: Map<string, number>,
  waits: Map<string, number>,
): void {
  if (event.type === "approval-request") starts.set(event.toolCallId, performance.now());
  if (event.type === "approval-result") {
    const startedAt = starts.get(event.toolCallId);
    if (startedAt !== undefined) waits.set(event.toolCallId, performance.now() - startedAt);
  }
}

/** First Ctrl-C or SIGTERM aborts the run; a second one exits at once. */
function handleSignals(controller: AbortController, io: CliIo): () => void {
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      process.exit(130);
    }
    io.stderr.write(`\n${name}: stopping the run (again to quit at once)...\n`);
    controller.abort(new Error(`Stopped by ${name}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
}
