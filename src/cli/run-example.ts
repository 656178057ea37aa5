import type { ApproverDirectory, ApproverIdentity } from "../agent/approval/approver-directory.js";
import { newRunId } from "../agent/durable/run-id.js";
import type { RunBudget } from "../agent/run-budget.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";
import type { AnswerFunction, AnswerMode } from "../simulators/messaging/answer-mode.js";
import {
  type TerminalAnswerer,
  terminalAnswerer,
} from "../simulators/messaging/terminal-answerer.js";
import {
  type ApprovalMode,
  checkSimulatedApprovals,
  simulatedApprovalMode,
} from "./approval-mode.js";
import { askSimulatorLink } from "./ask-simulator-link.js";
import { checkDurableServices } from "./check-durable-services.js";
import { checkServices } from "./check-services.js";
import { type CliIo, processIo } from "./cli-io.js";
import { usageError } from "./command-error.js";
import { createRunLogger } from "./create-run-logger.js";
import { type ExampleDefinition, servicesUsedBy } from "./example-definition.js";
import type { ExitCode } from "./exit-codes.js";
import { followRun } from "./follow-run.js";
import { commandSignal } from "./handle-stop-signals.js";
import { keepRunState } from "./keep-run-state.js";
import { localUserName } from "./local-user-name.js";
import { approverDirectoryVariable, givenApproverDirectory } from "./open-approver-directory.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";
import { beginAuditTrail, openAuditLog, stateKeyOf } from "./open-state-directory.js";
import { readServiceSettings } from "./read-service-settings.js";
import { redactCliOutput } from "./redact-cli-output.js";
import { ProgressRenderer } from "./render-progress.js";
import { reportError } from "./report-error.js";
import { type ResolvedServices, resolveServices } from "./resolve-services.js";
import { scenarioFor } from "./scenario-for.js";
import { startSavedRun } from "./start-saved-run.js";
import { terminalAnswers } from "./terminal-answers.js";
import { writeRunHeader } from "./write-run-header.js";
import { writeRunOutcome } from "./write-run-outcome.js";

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
  /**
   * Stop at the first approval request instead of waiting (`--no-wait`):
   * the run is saved in the state directory (`SWITCHYARD_STATE_DIR`) and
   * ends `suspended`, its id on stdout, to go on with `switchyard resume`.
   * Every service the example uses must be set in the environment.
   * @default false
   */
  noWait?: boolean | undefined;
  /**
   * Offer "Approve with changes" (`--allow-edits`): the person may change
   * an action's arguments before approving it, and only the changed action
   * runs. @default false
   */
  allowEdits?: boolean | undefined;
  /**
   * The run's budget (`--max-tool-calls`, `--max-tokens`, `--extend-budget`),
   * over the example agent's own. @default the example's
   */
  budget?: RunBudget | undefined;
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
  /**
   * Who may approve (`--approver-directory FILE`): a directory, or the path
   * of its JSON file (`loadApproverDirectory`). With one, the run is
   * started by the local user (`{ channel: "terminal", id:
   * os.userInfo().username }`) unless `startedBy` says otherwise, and an
   * answer typed at this terminal counts as the local user's.
   * @default the file `SWITCHYARD_APPROVER_DIRECTORY` names; else none, and answers count as they are
   */
  approverDirectory?: ApproverDirectory | string | undefined;
  /**
   * `--started-by ID`: the directory id of the person the run is started
   * for, instead of the local user. Needs an approver directory.
   * @default the local user
   */
  startedBy?: string | undefined;
}

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
  const io = redactCliOutput(options.io ?? processIo());
  const { signal, release: removeSignalHandlers } = commandSignal(options, io);
  const noWait = options.noWait === true;
  let answerer: TerminalAnswerer | undefined;
  let resolved: ResolvedServices | undefined;
  let progress: ProgressRenderer | undefined;
  let state: RunStorage | undefined;
  /** The audit log opened here, when the run storage's is not used. */
  let ownAuditLog: ReturnType<typeof openAuditLog> | undefined;
  try {
    const task = options.task ?? example.defaultTask;
    const settings = readServiceSettings(io.env);
    const stateKey = stateKeyOf(io.env);
    for (const note of settings.notes) io.stderr.write(`note: ${note}\n`);
    if (noWait) checkDurableServices(settings, example, "switchyard run --no-wait");
    if (options.approve !== undefined && options.approve !== "ask" && settings.messaging) {
      throw usageError(
        `--approve ${options.approve} only applies to the messaging simulator: with SWITCHYARD_MESSAGING_URL set, the person behind SWITCHYARD_APPROVER_LINK answers each request. Leave --approve out (or use --approve ask).`,
      );
    }
    const approverDirectory = await directoryOf(options, io);
    // With a directory, the local user starts the run and answers at this terminal as themselves.
    const localUser = approverDirectory === undefined ? undefined : localUserName();
    // With --no-wait nobody answers at this terminal: the answer comes through the messaging service.
    const mode = noWait || settings.messaging ? "deny" : simulatedApprovalMode(options.approve, io);
    const atTerminal =
      localUser !== undefined && mode === "ask" ? terminalAnswers(localUser) : undefined;
    checkSimulatedApprovals(mode, settings);
    // When asked here, the question itself lists what the approval is about.
    progress = new ProgressRenderer({ stream: io.stderr, approvalDetails: mode !== "ask" });
    if (mode === "ask") answerer = terminalAnswerer({ input: io.stdin, output: io.stderr });
    // In the browser the person answers on the simulator's inbox page: the simulator itself never does.
    const asked = answerer ? askThroughProgress(answerer, progress, io) : undefined;
    const answer: AnswerMode = asked
      ? (atTerminal?.answerer(asked) ?? asked)
      : mode === "browser"
        ? "never"
        : (mode as Exclude<ApprovalMode, "ask" | "browser">);
    state = noWait ? await openRunStorage(io.env) : undefined;
    // With --no-wait the storage's own log: in PostgreSQL, no second pool.
    ownAuditLog = state ? undefined : openAuditLog(io.env);
    const auditLog = state?.auditLog ?? ownAuditLog;
    if (auditLog) await beginAuditTrail(io.env, auditLog);
    resolved = await resolveServices({
      settings,
      scenario: scenarioFor(example.name),
      answer,
      logger: createRunLogger(io.env, io.stderr),
      approvalTimeoutMs: options.approvalTimeoutMs,
      allowEdits: options.allowEdits === true,
      ...(state ? { runStore: state.store } : {}),
      stateKey,
      auditLog,
      approverDirectory,
    });
    // Every run has an id, printed first, so its audit records can be found (switchyard audit show).
    const runId = newRunId();
    const startedBy =
      localUser === undefined
        ? undefined
        : (options.startedBy ?? ({ channel: "terminal", id: localUser } as const));
    writeRunHeader(io, {
      title: `switchyard run ${example.name}${noWait ? " --no-wait" : ""}`,
      runId,
      task,
      resolved,
      approvals: `${describeApprovals(resolved, {
        simulatedMode: settings.messaging ? undefined : mode,
        requested: options.approve !== undefined,
        noWait,
      })}${directoryNote(startedBy)}`,
    });
    await checkServices(resolved, servicesUsedBy(example), signal);

    const { services } = resolved;
    // With a directory, the simulator's one link is asked, not the links the directory names.
    const onSimulator =
      approverDirectory !== undefined && !settings.messaging
        ? askSimulatorLink(services.approver)
        : services.approver;
    const agent = example.createAgent({
      ...services,
      approver: atTerminal ? atTerminal.approver(onSimulator) : onSimulator,
    });
    const { budget } = options;
    const saved = state
      ? await startSavedRun(agent, {
          example,
          task,
          state,
          resolved,
          signal,
          budget,
          runId,
          startedBy,
        })
      : undefined;
    const stream =
      saved?.stream ??
      agent.stream(task, {
        signal,
        budget,
        runId,
        ...(startedBy !== undefined ? { startedBy } : {}),
      });
    const { result, durationMs, approvalWaits } = await followRun(stream, progress);
    if (state && saved) {
      if (result.state === undefined) {
        // It failed before it started (its id taken, the store unwritable): nothing to resume.
        await state.records.delete(saved.runId).catch(() => {});
      }
      await keepRunState(state.store, result, { io, example: example.name });
    }
    return writeRunOutcome(result, {
      io,
      json: options.json === true,
      noWait,
      report: {
        example: example.name,
        task,
        durationMs,
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
    await state?.close().catch(() => {});
    if (ownAuditLog && "close" in ownAuditLog) await ownAuditLog.close().catch(() => {});
  }
}

/** The approver directory of the run: the one given, the file named, or `SWITCHYARD_APPROVER_DIRECTORY`'s. */
async function directoryOf(
  options: Pick<RunExampleOptions, "approverDirectory" | "startedBy">,
  io: CliIo,
): Promise<ApproverDirectory | undefined> {
  const directory = await givenApproverDirectory(options.approverDirectory, io.env);
  if (options.startedBy !== undefined && directory === undefined) {
    throw usageError(
      `--started-by names a person of the approver directory, and there is none: give --approver-directory FILE (or set ${approverDirectoryVariable}) too.`,
    );
  }
  if (
    options.startedBy !== undefined &&
    (await directory?.person(options.startedBy)) === undefined
  ) {
    throw usageError(
      `--started-by "${escapeUntrustedText(options.startedBy)}" is nobody's id in the approver directory: give the id of the person the run is started for, as the directory's "people" name them.`,
    );
  }
  return directory;
}

/** What the header adds about who may approve, with a directory: who started the run. */
function directoryNote(startedBy: string | ApproverIdentity | undefined): string {
  if (startedBy === undefined) return "";
  const starter =
    typeof startedBy === "string"
      ? escapeUntrustedText(startedBy)
      : `${escapeUntrustedText(startedBy.id)} (local user)`;
  return `; counted only from people the approver directory allows, the run started by ${starter}`;
}

function describeApprovals(
  resolved: ResolvedServices,
  how: { simulatedMode: ApprovalMode | undefined; requested: boolean; noWait: boolean },
): string {
  const { simulatedMode, noWait } = how;
  if (simulatedMode === undefined) {
    const who = `the person behind SWITCHYARD_APPROVER_LINK ${resolved.services.approverLinkId}`;
    return noWait ? `${who}; the run stops at the first question (--no-wait)` : who;
  }
  if (simulatedMode === "ask") return "asked at this terminal (through the messaging simulator)";
  if (simulatedMode === "browser") {
    return "answered in a browser, on the messaging simulator's inbox page (--approve browser)";
  }
  const answered = `always ${simulatedMode === "approve" ? "approved" : "denied"} by the messaging simulator`;
  if (how.requested) return `${answered} (--approve ${simulatedMode})`;
  return `${answered} (no terminal to ask at; --approve approve to approve)`;
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
      const choice = await answerer(question);
      const toolCallId = question.metadata.tool_call_id;
      if (choice) progress.answered(typeof toolCallId === "string" ? toolCallId : undefined);
      return choice;
    } finally {
      // A terminal echoes the person's Enter; piped input leaves the prompt's line open.
      if (io.stdin.isTTY !== true) io.stderr.write("\n");
      progress.resume();
    }
  };
}
