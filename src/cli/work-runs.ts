import type { Agent } from "../agent/agent.js";
import { RunWorker, type RunWorkerOutcome } from "../agent/durable/run-worker.js";
import { checkDurableServices } from "./check-durable-services.js";
import { type CliIo, processIo } from "./cli-io.js";
import { usageError } from "./command-error.js";
import { createRunLogger } from "./create-run-logger.js";
import type { ExampleDefinition } from "./example-definition.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";
import { stateKeyOf } from "./open-state-directory.js";
import { readServiceSettings } from "./read-service-settings.js";
import { reportError } from "./report-error.js";
import { type ResolvedServices, resolveServices } from "./resolve-services.js";
import { scenarioFor } from "./scenario-for.js";

/** Options of {@link workRuns}: the flags of `switchyard worker`, and where to read and write. */
export interface WorkRunsOptions {
  /** Runs in hand at once (`--concurrency`). @default 4 */
  concurrency?: number | undefined;
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
    const opened = await openRunStorage(io.env);
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
      let resolved = resolvedByExample.get(example.name);
      if (!resolved) {
        resolved = resolveServices({
          settings,
          scenario: scenarioFor(example.name),
          // Only used by a messaging simulator, which a run that can suspend never has.
          answer: "deny",
          logger,
          runStore: opened.store,
          stateKey: stateKeyOf(io.env),
        });
        resolvedByExample.set(example.name, resolved);
      }
      return example.createAgent((await resolved).services);
    };
    const worker = new RunWorker({
      runStore: opened.store,
      agent: agentFor,
      concurrency,
      logger,
      onRunSettled: (outcome) => io.stdout.write(`${describeOutcome(outcome)}\n`),
    });
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

function describeOutcome(outcome: RunWorkerOutcome): string {
  const taken = outcome.recovered ? " (taken over from a worker that stopped)" : "";
  if (outcome.error) {
    return `${outcome.runId} not resumed${taken}: ${outcome.error.message} (tried again later)`;
  }
  const status = outcome.result?.status ?? "unknown";
  const what = status === "suspended" ? "still waiting for an answer" : status;
  return `${outcome.runId} ${what}${taken}`;
}
