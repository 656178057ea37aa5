import type { Agent } from "../agent/agent.js";
import type { ApproverDirectory } from "../agent/approval/approver-directory.js";
import { describeThrown } from "../agent/describe-thrown.js";
import { RunWorker, type RunWorkerOutcome } from "../agent/durable/run-worker.js";
import { redactText } from "../internal/redact.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";
import { isTransientPostgresError } from "../stores/is-transient-postgres-error.js";
import { withdrawQuestions } from "./cancel-run.js";
import { checkDurableServices } from "./check-durable-services.js";
import { type CliIo, processIo } from "./cli-io.js";
import { usageError } from "./command-error.js";
import { createRunLogger } from "./create-run-logger.js";
import type { ExampleDefinition } from "./example-definition.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { givenApproverDirectory } from "./open-approver-directory.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";
import { beginAuditTrail, stateKeyOf } from "./open-state-directory.js";
import { readServiceSettings } from "./read-service-settings.js";
import { reportError } from "./report-error.js";
import { requireApproverDirectory } from "./require-approver-directory.js";
import { type ResolvedServices, resolveServices } from "./resolve-services.js";
import { scenarioFor } from "./scenario-for.js";

/** Options of {@link workRuns}: the flags of `switchyard worker`, and where to read and write. */
export interface WorkRunsOptions {
  /** Runs in hand at once (`--concurrency`). @default 4 */
  concurrency?: number | undefined;
  /** The longest wait before a run whose answer is still pending is looked at again (`--recheck-after`). @default 30_000 */
  recheckAfterMs?: number | undefined;
  /** The first wait before a new question is asked about (`--first-recheck-after`). @default 1_000 */
  firstRecheckAfterMs?: number | undefined;
  /** The fleet's budget of approval checks per second (`--checks-per-second`). @default none */
  checksPerSecond?: number | undefined;
  /** How long an idle worker waits before looking again (`--poll-interval`). @default 1_000 */
  pollIntervalMs?: number | undefined;
  /** The claims' lease (`--lease`). @default 60_000 */
  leaseMs?: number | undefined;
  /** Failed resumes in a row before a run ends failed (`--max-attempts`). @default 25 */
  maxAttempts?: number | undefined;
  /** The longest wait before a run whose resume failed is tried again (`--max-retry-after`). @default 3_600_000 */
  maxRetryAfterMs?: number | undefined;
  /** Runs that ended longer ago than this are deleted (`--prune-after`). @default never */
  pruneAfterMs?: number | undefined;
  /** Read approvals with changes, and offer them in new questions (`--allow-edits`). @default false */
  allowEdits?: boolean | undefined;
  /**
   * Who may approve (`--approver-directory FILE`): a directory, or the path
   * of its JSON file. Give the one the runs were started with: who started
   * each run is kept in it.
   * @default the file `SWITCHYARD_APPROVER_DIRECTORY` names; else none
   */
  approverDirectory?: ApproverDirectory | string | undefined;
  /** @default the process's streams and environment */
  io?: CliIo | undefined;
  /** Stops the worker as a first SIGTERM does (resolves once the runs in hand are done). */
  signal?: AbortSignal | undefined;
  /** SIGTERM / Ctrl-C stop the worker (a second one releases the runs in hand and exits). @default false */
  handleSignals?: boolean | undefined;
}

/**
 * `switchyard worker`: resumes the due runs of `switchyard run --no-wait`
 * from the store (PostgreSQL with `SWITCHYARD_DATABASE_URL`, else the state
 * directory) until stopped, rebuilding each run's example agent over the
 * services in the environment. Prints one line per run it settles. The
 * first SIGTERM (or Ctrl-C) stops taking runs and lets those in hand
 * finish; a second releases them to other workers and exits. Resolves to
 * the exit status.
 */
export async function workRuns(
  examples: readonly ExampleDefinition[],
  options: WorkRunsOptions = {},
): Promise<ExitCode> {
  const io = options.io ?? processIo();
  const resolvedByExample = new Map<string, Promise<ResolvedServices>>();
  let storage: RunStorage | undefined;
  let removeSignalHandlers = () => {};
  try {
    const concurrency = options.concurrency ?? 4;
    const settings = readServiceSettings(io.env);
    for (const note of settings.notes) io.stderr.write(`note: ${note}\n`);
    // Not prepared here: an unreachable database is reported at each poll, and the worker keeps trying.
    const approverDirectory = await givenApproverDirectory(options.approverDirectory, io.env);
    const opened = await openRunStorage(io.env, { prepare: false });
    storage = opened;
    const logger = createRunLogger(io.env, io.stderr);
    const agentFor = async (runId: string): Promise<Agent> => {
      const record = await opened.records.load(runId);
      if (!record) {
        throw usageError(
          `Run "${runId}" was not started by switchyard run --no-wait (there is no ${opened.records.describe(runId)}), so the worker does not know which agent to rebuild; resume it from the code that started it.`,
        );
      }
      const example = examples.find((candidate) => candidate.name === record.example);
      if (!example) {
        throw usageError(
          `Run "${runId}" belongs to the example "${record.example}", which this switchyard does not have.`,
        );
      }
      checkDurableServices(settings, example, "switchyard worker");
      // Read only without a directory: whether the run was started with one.
      if (approverDirectory === undefined) {
        requireApproverDirectory(await opened.store.load(runId), undefined, "switchyard worker");
      }
      let resolved = resolvedByExample.get(example.name);
      if (!resolved) {
        resolved = resolveServices({
          settings,
          scenario: scenarioFor(example.name),
          // Only used by a messaging simulator, which a run that can suspend never has.
          answer: "deny",
          logger,
          allowEdits: options.allowEdits === true,
          runStore: opened.store,
          stateKey: stateKeyOf(io.env),
          auditLog: opened.auditLog,
          approverDirectory,
        });
        resolvedByExample.set(example.name, resolved);
      }
      return example.createAgent((await resolved).services);
    };
    const pollIntervalMs = options.pollIntervalMs ?? 1_000;
    const waits = new WaitLines();
    // The questions of runs given up on, being withdrawn: waited for before the store closes.
    const withdrawals = new Set<Promise<void>>();
    const worker = new RunWorker({
      runStore: opened.store,
      agent: agentFor,
      concurrency,
      recheckAfterMs: options.recheckAfterMs,
      firstRecheckAfterMs: options.firstRecheckAfterMs,
      approvalChecksPerSecond: options.checksPerSecond,
      pollIntervalMs,
      leaseMs: options.leaseMs,
      maxAttempts: options.maxAttempts,
      maxRetryAfterMs: options.maxRetryAfterMs,
      pruneFinishedAfterMs: options.pruneAfterMs,
      onRunsPruned: async (runIds) => {
        for (const runId of runIds) await opened.records.delete(runId).catch(() => {});
        io.stderr.write(
          `switchyard worker: pruned ${runIds.length} run${runIds.length === 1 ? "" : "s"} that ended long ago.\n`,
        );
      },
      logger,
      onRunSettled: (outcome) => {
        const line = waits.lineFor(outcome);
        if (line !== undefined) io.stdout.write(`${line}\n`);
        if (!outcome.gaveUp) return;
        const withdrawal = withdrawAfterGivingUp(opened, outcome.runId, io).finally(() =>
          withdrawals.delete(withdrawal),
        );
        withdrawals.add(withdrawal);
      },
      onStoreError: (error, { reached }) => {
        io.stderr.write(
          `switchyard worker: could not take a due run from ${opened.where}${reached ? "" : " (not reached yet)"}: ${escapeUntrustedText(redactText(describeThrown(error)))}. Check ${opened.variable}; trying again in ${formatDuration(pollIntervalMs)}.\n`,
        );
      },
    });
    // A keyed or signed trail begins now, as `switchyard run` begins it, so a
    // fresh one verifies as empty before the first decision. A trail it
    // cannot begin (one it cannot vouch for, a key it lacks, a file it
    // cannot write) stops the worker here, as it stops `switchyard run`:
    // every approval it then took would be spent as a refusal, the decision
    // not recorded. A database not reached yet is said, and the worker keeps
    // trying as it does for its runs (they are in the same database, so none
    // is taken before it answers); the first decision begins the trail then.
    try {
      await beginAuditTrail(io.env, opened.auditLog);
    } catch (error) {
      if (opened.variable !== "SWITCHYARD_DATABASE_URL" || !isDatabaseFailure(error)) throw error;
      io.stderr.write(
        `switchyard worker: ${escapeUntrustedText(redactText(describeThrown(error)))}; the first decision tries again, and no approved call runs until it is recorded.\n`,
      );
    }
    io.stderr.write(
      `switchyard worker ${worker.owner}: resuming due runs from ${opened.where} (${opened.variable}), ${concurrency} at a time. SIGTERM or Ctrl-C stops taking runs (a second time: release them to other workers and quit).\n`,
    );
    const stopped = new Promise<void>((resolve) => {
      let signals = 0;
      const onSignal = (name: string) => {
        signals++;
        if (signals === 1) {
          io.stderr.write(
            `${name}: taking no more runs; finishing ${worker.runsInHand.length} in hand (again to release them and quit)...\n`,
          );
          worker.stop().then(resolve, resolve);
        } else {
          io.stderr.write(
            `${name}: releasing ${worker.runsInHand.length} run(s) to other workers.\n`,
          );
          worker.stop({ release: true }).finally(() => process.exit(130));
        }
      };
      options.signal?.addEventListener("abort", () => onSignal("stop"), { once: true });
      if (options.handleSignals) {
        process.on("SIGINT", onSignal);
        process.on("SIGTERM", onSignal);
        removeSignalHandlers = () => {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
        };
      }
    });
    await Promise.all([worker.start(), stopped]);
    await Promise.all(withdrawals);
    if (!worker.reachedStore) {
      io.stderr.write(
        `switchyard worker: stopped without ever reaching ${opened.where}; check ${opened.variable}.\n`,
      );
      return exitCodes.notCompleted;
    }
    io.stderr.write("switchyard worker: stopped.\n");
    return exitCodes.completed;
  } catch (error) {
    return reportError(error, io);
  } finally {
    removeSignalHandlers();
    for (const resolved of resolvedByExample.values()) {
      await resolved.then((services) => services.close()).catch(() => {});
    }
    await storage?.close().catch(() => {});
  }
}

/**
 * Which settled runs get a line: every one but a run still waiting as it was
 * at its last line. A run whose question is still open is checked again and
 * again (every few seconds at first); a line per check would read as if the
 * person were asked each time, so it has one line when it starts waiting
 * (or waits for other questions), and the next when that changes.
 */
class WaitLines {
  /** Per run still waiting: what it waits for, as its last line said. */
  readonly #waiting = new Map<string, string>();

  /** The line for this outcome; `undefined` when the run waits as its last line said. */
  lineFor(outcome: RunWorkerOutcome): string | undefined {
    const { runId } = outcome;
    const waitingFor = waitingForOf(outcome);
    const before = this.#waiting.get(runId);
    if (waitingFor === undefined) {
      this.#waiting.delete(runId);
      return describeOutcome(outcome, waitingFor);
    }
    this.#waiting.set(runId, waitingFor);
    // Checked and still open: the same wait as the line before, whatever it named.
    if (before !== undefined && (waitingFor === "" || waitingFor === before)) return undefined;
    return describeOutcome(outcome, waitingFor);
  }
}

/**
 * What a settled run waits for: `""` when a check found its questions still
 * open, the calls it waits for when a resume suspended it again, and
 * `undefined` when it does not wait (it ended, or could not be resumed).
 */
function waitingForOf(outcome: RunWorkerOutcome): string | undefined {
  if (outcome.error) return undefined;
  if (outcome.stillPending) return "";
  if (outcome.result?.status !== "suspended") return undefined;
  return (outcome.result.steps.at(-1)?.toolCalls ?? [])
    .flatMap((call) =>
      call.status === "awaiting_approval"
        ? [`${call.toolName} (interaction ${call.approval.interactionId})`]
        : [],
    )
    .join(", ");
}

/**
 * One line per run the worker settles: `<run id> <status>`, and why when it
 * did not complete (service and model text escaped, on one line).
 * `waitingFor` is the outcome's {@link waitingForOf}.
 */
function describeOutcome(outcome: RunWorkerOutcome, waitingFor: string | undefined): string {
  const taken = outcome.recovered ? " (taken over from a worker that stopped)" : "";
  if (outcome.error) {
    const error = escapeUntrustedText(redactText(describeThrown(outcome.error)));
    if (outcome.gaveUp) {
      return `${outcome.runId} failed${taken}: gave up after ${outcome.attempts} failed attempts to resume it; the last: ${error}`;
    }
    const attempt = outcome.attempts ? `, attempt ${outcome.attempts}` : "";
    return `${outcome.runId} not resumed${taken}: ${error} (tried again later${attempt})`;
  }
  if (outcome.stillPending) {
    return `${outcome.runId} waiting for an answer: checked, its question is still open (nothing was sent again); the worker keeps checking and prints a line when that changes`;
  }
  const status = outcome.result?.status ?? "unknown";
  const what =
    status === "suspended"
      ? `waiting for an answer${waitingFor ? ` about ${escapeUntrustedText(waitingFor)}` : ""}: the worker checks its question and prints a line when that changes`
      : status;
  const error = outcome.result?.error;
  const why =
    error && status !== "suspended"
      ? `: ${escapeUntrustedText(redactText(describeThrown(error)))}`
      : "";
  return `${outcome.runId} ${what}${taken}${why}`;
}

/**
 * After giving up on a run: each question it waits for is withdrawn, as
 * `runs cancel` does, so nobody answers a question whose answer runs
 * nothing now; one line each on stderr. Never rejects.
 */
async function withdrawAfterGivingUp(storage: RunStorage, runId: string, io: CliIo) {
  try {
    const lines = await withdrawQuestions(await storage.store.load(runId), io);
    for (const line of lines) io.stderr.write(`${line}\n`);
  } catch (error) {
    io.stderr.write(
      `note: the questions of run ${runId} were not withdrawn (${escapeUntrustedText(redactText(describeThrown(error)))}); an answer to them runs nothing.\n`,
    );
  }
}

/** `1.5 s`, `30 s`, `2 min`: a wait as the worker's messages say it. */
function formatDuration(milliseconds: number): string {
  if (milliseconds < 60_000) return `${Number((milliseconds / 1000).toFixed(1))} s`;
  return `${Number((milliseconds / 60_000).toFixed(1))} min`;
}

/**
 * Whether beginning the trail failed in the database or on the way to it
 * (refused, lost, a wrong password or address): each such error, or one
 * it was caused by, carries a SQLSTATE or a system code, or is a lost
 * connection. The trail's own checks (a head it cannot vouch for, a key it
 * lacks) throw without a code.
 */
function isDatabaseFailure(error: unknown): boolean {
  if (isTransientPostgresError(error)) return true;
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (typeof (cause as { code?: unknown }).code === "string") return true;
    cause = cause.cause;
  }
  return false;
}
