import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import { RunNotResumableError, RunStateError } from "../agent/durable/durable-errors.js";
import type { RunState } from "../agent/durable/run-state.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { withoutTrailingSlashes } from "../internal/without-trailing-slashes.js";
import { checkDurableServices } from "./check-durable-services.js";
import { checkServices } from "./check-services.js";
import { type CliIo, processIo } from "./cli-io.js";
import type { CliRunRecord } from "./cli-run-records.js";
import { CommandError, usageError } from "./command-error.js";
import { createRunLogger } from "./create-run-logger.js";
import { type ExampleDefinition, servicesUsedBy } from "./example-definition.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { followRun } from "./follow-run.js";
import { displayUrl } from "./format-text.js";
import { commandSignal } from "./handle-stop-signals.js";
import { keepRunState } from "./keep-run-state.js";
import { loadSavedRun } from "./load-saved-run.js";
import { givenApproverDirectory } from "./open-approver-directory.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";
import { stateKeyOf } from "./open-state-directory.js";
import {
  readServiceSettings,
  type ServiceSettings,
  serviceNames,
  serviceVariables,
} from "./read-service-settings.js";
import { redactCliOutput } from "./redact-cli-output.js";
import { ProgressRenderer } from "./render-progress.js";
import { reportError } from "./report-error.js";
import { requireApproverDirectory } from "./require-approver-directory.js";
import { type ResolvedServices, resolveServices } from "./resolve-services.js";
import { scenarioFor } from "./scenario-for.js";
import { writeRunHeader } from "./write-run-header.js";
import { writeRunOutcome } from "./write-run-outcome.js";

/** Options of {@link resumeRun}: the flags of `switchyard resume`, and where to read and write. */
export interface ResumeRunOptions {
  /** Print the run's report as one JSON object on stdout. @default false */
  json?: boolean | undefined;
  /** Resume a run marked running whose process is gone (`--take-over`). @default false */
  takeOver?: boolean | undefined;
  /**
   * The examples' policy allows edits (`--allow-edits`): an approval with
   * changes, as a run started with `--allow-edits` may get, is read, and
   * the questions it asks offer one. @default false
   */
  allowEdits?: boolean | undefined;
  /** @default the process's streams and environment */
  io?: CliIo | undefined;
  /** Stops the resumed run. */
  signal?: AbortSignal | undefined;
  /** Ctrl-C / SIGTERM abort the run (a second one exits at once). @default false */
  handleSignals?: boolean | undefined;
  /** How long the approver waits for an answer it cannot suspend for. @default 600000 (10 minutes) */
  approvalTimeoutMs?: number | undefined;
  /**
   * Who may approve (`--approver-directory FILE`): a directory, or the path
   * of its JSON file. Give the one the run was started with: who started
   * the run is kept in it.
   * @default the file `SWITCHYARD_APPROVER_DIRECTORY` names; else none
   */
  approverDirectory?: ApproverDirectory | string | undefined;
}

/**
 * Goes on with a run saved by `switchyard run --no-wait`, the way
 * `switchyard resume <run-id>` does: rebuilds the agent of the run's
 * example over the services in the environment, reads the pending answer
 * without asking again, and continues; when the answer is still pending the
 * run suspends again at once (exit status 3). Resolves to the exit status and
 * never rejects: an unknown id, an unreadable saved run or a run that
 * already ended is one line on stderr and exit status 2.
 *
 * @example
 * process.exitCode = await resumeRun("run_20250512T093000Z_1a2b3c4d", examples, { json: true });
 */
export async function resumeRun(
  runId: string,
  examples: readonly ExampleDefinition[],
  options: ResumeRunOptions = {},
): Promise<ExitCode> {
  const io = redactCliOutput(options.io ?? processIo());
  const { signal, release: removeSignalHandlers } = commandSignal(options, io);
  const takeOver = options.takeOver === true;
  let resolved: ResolvedServices | undefined;
  let progress: ProgressRenderer | undefined;
  let directory: RunStorage | undefined;
  try {
    directory = await openRunStorage(io.env);
    const saved = await loadSavedRun(directory, runId);
    const record = await directory.records.load(runId);
    if (!record) {
      throw usageError(
        `Run "${runId}" was not started by switchyard run --no-wait (there is no ${directory.records.describe(runId)}), so the command does not know which agent to rebuild; resume it from the code that started it, with agent.resume("${runId}") and the same tools and approver.`,
      );
    }
    const example = examples.find((candidate) => candidate.name === record.example);
    if (!example) {
      throw usageError(
        `Run "${runId}" belongs to the example "${record.example}", which this switchyard does not have; the examples are: ${examples.map((candidate) => candidate.name).join(", ")}.`,
      );
    }
    checkStatus(saved, takeOver);
    const approverDirectory = await givenApproverDirectory(options.approverDirectory, io.env);
    requireApproverDirectory(saved, approverDirectory, "switchyard resume");
    const settings = readServiceSettings(io.env);
    for (const note of settings.notes) io.stderr.write(`note: ${note}\n`);
    checkDurableServices(settings, example, "switchyard resume");
    checkSameServices(record, settings, io);

    progress = new ProgressRenderer({ stream: io.stderr });
    resolved = await resolveServices({
      settings,
      scenario: scenarioFor(example.name),
      // Only used by a messaging simulator, which a run that can suspend never has.
      answer: "deny",
      logger: createRunLogger(io.env, io.stderr),
      approvalTimeoutMs: options.approvalTimeoutMs,
      allowEdits: options.allowEdits === true,
      runStore: directory.store,
      stateKey: stateKeyOf(io.env),
      auditLog: directory.auditLog,
      approverDirectory,
    });
    writeRunHeader(io, {
      title: `switchyard resume ${runId} (${example.name}, ${saved.stepCount} ${saved.stepCount === 1 ? "step" : "steps"} so far)`,
      task: record.task,
      resolved,
      approvals: settings.messaging
        ? `the person behind SWITCHYARD_APPROVER_LINK ${resolved.services.approverLinkId}; the run stops again at a question not answered yet`
        : "always denied by the messaging simulator",
    });
    await checkServices(resolved, servicesUsedBy(example), signal);

    const agent = example.createAgent(resolved.services);
    let stream: ReturnType<typeof agent.resumeStream>;
    try {
      stream = agent.resumeStream(saved, { signal, takeOver });
    } catch (error) {
      throw describeRefusal(error, runId);
    }
    const { result, durationMs, approvalWaits } = await followRun(stream, progress);
    if (
      result.status === "failed" &&
      (result.error instanceof RunNotResumableError || result.error instanceof RunStateError)
    ) {
      // Refused before anything ran (another process holds the run, or its
      // seal does not match): nothing to save or report.
      throw describeRefusal(result.error, runId);
    }
    await keepRunState(directory.store, result, { io, example: example.name });
    return writeRunOutcome(result, {
      io,
      json: options.json === true,
      command: "resume",
      report: {
        example: example.name,
        task: record.task,
        durationMs,
        origins: resolved.origins,
        approvalWaits,
      },
    });
  } catch (error) {
    progress?.close();
    return reportError(error, io, resolved ? { origins: resolved.origins } : {});
  } finally {
    removeSignalHandlers();
    await resolved?.close();
    await directory?.close().catch(() => {});
  }
}

/** Refuses, in the command's words, a run that already ended or may still be running elsewhere. */
function checkStatus(state: RunState, takeOver: boolean): void {
  const { runId, status, updatedAt } = state;
  if (status === "suspended" || (status === "running" && takeOver)) return;
  if (status === "running") {
    throw usageError(
      `Run "${runId}" is marked running (last saved ${updatedAt}): another process may still be working on it. If that process is gone (it crashed or was killed), run switchyard resume ${runId} --take-over; a destructive call it had started is not run again.`,
    );
  }
  throw usageError(
    `Run "${runId}" already ended with status ${status} (last saved ${updatedAt}); only a suspended run can be resumed (switchyard runs --status suspended lists them).`,
  );
}

/**
 * The answer to the run's question is only in the messaging service it was
 * sent through: another one is a usage error. Other services that moved
 * only earn a note.
 */
function checkSameServices(record: CliRunRecord, settings: ServiceSettings, io: CliIo): void {
  for (const service of serviceNames) {
    const then = record.services[service];
    const now = settings[service];
    if (then.simulated || !now) continue;
    const url = displayUrl(now.url);
    if (sameAddress(then.url, url)) continue;
    const variable = serviceVariables[service].url;
    if (service === "messaging") {
      throw usageError(
        `Run "${record.runId}" asked for approval through the messaging service at ${then.url}, but ${variable} is now ${url}: its answer is only there. Point ${variable} (with its token and SWITCHYARD_APPROVER_LINK) back at that service; a restarted switchyard sim has forgotten the question, so start a new run instead.`,
      );
    }
    io.stderr.write(
      `note: run "${record.runId}" started with the ${service} service at ${then.url}; ${variable} is now ${url}.\n`,
    );
  }
}

function sameAddress(first: string, second: string): boolean {
  return withoutTrailingSlashes(first) === withoutTrailingSlashes(second);
}

/** The agent's refusal to resume, as the command words it. */
function describeRefusal(error: unknown, runId: string): unknown {
  if (error instanceof ConfigurationError) {
    return usageError(`Run "${runId}" cannot be resumed: ${error.problems.join(" ")}`, {
      cause: error,
    });
  }
  if (error instanceof RunStateError) {
    return usageError(
      `Run "${runId}" cannot be resumed: ${error.problems.join("; ")}. Check who changed the state directory; delete the run to drop it.`,
      { cause: error },
    );
  }
  if (!(error instanceof RunNotResumableError)) return error;
  // The agent words its hint for library callers; say it as a command.
  const message =
    error.hint.takeOver === true
      ? error.message.replace(
          /resume with \{ takeOver: true \}/,
          `run switchyard resume ${runId} --take-over`,
        )
      : error.message;
  // Another process holding the run is a reason to try again later, not a mistake.
  return new CommandError(
    message,
    error.status === "claimed" || error.hint.retryAfterMs !== undefined
      ? exitCodes.notCompleted
      : exitCodes.usage,
    { cause: error },
  );
}
