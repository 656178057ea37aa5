import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import type { EngineFleetFigures } from "./engine-figures.js";
import { type Figure, type FigureResult, round as roundTo } from "./figure.js";
import type { FleetSizes } from "./fleet.js";
import { type FleetBench, startFleetBench } from "./start-fleet-bench.js";
import { median, percentile } from "./statistics.js";

const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** What a DBOS worker process printed (see dbos-worker-process.ts). */
interface DbosMessage {
  ready?: boolean;
  waiting?: number;
  runId?: string;
  taken?: boolean;
  waitedMs?: number;
  status?: string;
  at?: number;
  cpuMs?: number;
  roundTrips?: number;
}

interface DbosWorker {
  send(command: object): void;
  /** Resolves with the first message (from now on, or already printed after `from`) that `matches`. */
  next(matches: (message: DbosMessage) => boolean, from?: number): Promise<DbosMessage>;
  /** How many of the messages it printed so far match. */
  count(matches: (message: DbosMessage) => boolean): number;
  /** SIGTERM; resolves with its CPU time and statements since `wakeAll`. */
  stop(): Promise<{ cpuMs: number; roundTrips: number }>;
}

/**
 * The fleet figure's quantities for the same agent (`fleetAgentOptions`)
 * as a durable agent on DBOS (`dbosAgent`), on the same database and
 * simulators, with the same numbers of processes (and the runs `sizes`
 * gives, fewer than the built-in fleet's in `npm run bench`): each process
 * (an executor of its own, one DBOS application) starts its share of the
 * runs, which ask their question and wait in `DBOS.recv`; every question is
 * answered; then every process wakes its runs (`wake(runId)`, `concurrency`
 * at a time) and the runs are timed until all are `completed` in the run
 * store. Worker CPU and statements are the processes' own from the wakes
 * on (every connection: DBOS's and the run store's, counted by `pg`'s
 * client). Then, with one idle process: from `start()` to the run's first
 * step beginning, and from an answer (then `wake`) to the run ended.
 */
export async function measureDbosFleet(
  sizes: FleetSizes,
  shared?: FleetBench | undefined,
): Promise<FigureResult> {
  const bench = shared ?? (await startFleetBench(sizes.databaseUrl, "bench"));
  const { admin, databaseUrl, messaging, services } = bench;
  const benchId = randomUUID().slice(0, 8);
  const schemas: string[] = [];
  const figures: Figure[] = [];
  const counts: Record<string, number> = {};
  const fleets: EngineFleetFigures[] = [];
  const workers: DbosWorker[] = [];
  const newSchemas = (label: string) => {
    const pair = {
      dbosSchema: `bench_dbos_${label}_${benchId}`,
      runStoreSchema: `bench_dbos_runs_${label}_${benchId}`,
    };
    schemas.push(pair.dbosSchema, pair.runStoreSchema);
    return pair;
  };
  // One at a time: the first creates the schemas' tables, the others find them.
  const startFleet = async (label: string, processes: number) => {
    const pair = newSchemas(label);
    const fleet: DbosWorker[] = [];
    for (let index = 0; index < processes; index++) {
      const worker = await startDbosWorker(
        [
          databaseUrl,
          pair.dbosSchema,
          pair.runStoreSchema,
          JSON.stringify(services),
          `${label}-${index}`,
          String(sizes.concurrency),
        ],
        label,
      );
      workers.push(worker);
      fleet.push(worker);
    }
    return { fleet, ...pair };
  };
  const stopFleet = async (fleet: readonly DbosWorker[]) => {
    const stopped = await Promise.all(fleet.map((worker) => worker.stop()));
    for (const worker of fleet) workers.splice(workers.indexOf(worker), 1);
    return stopped;
  };
  const suspend = async (fleet: readonly DbosWorker[], runs: number) => {
    await Promise.all(
      fleet.map((worker, index) => {
        const share = Math.floor(runs / fleet.length) + (index < runs % fleet.length ? 1 : 0);
        const waiting = worker.next((message) => message.waiting !== undefined);
        worker.send({ suspend: share });
        return waiting;
      }),
    );
  };
  const questions = async (runStoreSchema: string) =>
    (
      await admin.query<{ run_id: string; interaction: string }>(
        `SELECT run_id, state->'pendingCalls'->0->>'interactionId' AS interaction
           FROM "${runStoreSchema}".runs WHERE status = 'suspended'`,
      )
    ).rows;
  try {
    for (const processes of sizes.workerCounts) {
      const label = `w${processes}`;
      const { fleet, runStoreSchema } = await startFleet(label, processes);
      await suspend(fleet, sizes.runs);
      const waiting = await questions(runStoreSchema);
      counts[`waitingWith${processes}Processes`] = waiting.length;
      for (const { interaction } of waiting) messaging.answerInteraction(interaction, "approve");
      const completed = async () =>
        Number(
          (
            await admin.query(
              `SELECT count(*) AS n FROM "${runStoreSchema}".runs WHERE status = 'completed'`,
            )
          ).rows[0].n,
        );
      const started = performance.now();
      for (const worker of fleet) worker.send({ wakeAll: true });
      while ((await completed()) < sizes.runs) await sleep(20);
      const seconds = (performance.now() - started) / 1000;
      // The workflows record their ends after the runs' last saves: stopped once they did.
      const ended = (message: DbosMessage) => message.at !== undefined;
      while (fleet.reduce((sum, worker) => sum + worker.count(ended), 0) < sizes.runs) {
        await sleep(20);
      }
      const stopped = await stopFleet(fleet);
      counts[`completedWith${processes}Processes`] = await completed();
      const cpuMs = stopped.reduce((sum, worker) => sum + worker.cpuMs, 0);
      const roundTrips = stopped.reduce((sum, worker) => sum + worker.roundTrips, 0);
      const plural = processes === 1 ? "" : "es";
      fleets.push({
        processes,
        runsPerSecond: round(sizes.runs / seconds),
        roundTripsPerRun: roundTo(roundTrips / sizes.runs, 2),
        workerCpuMsPerRun: roundTo(cpuMs / sizes.runs, 2),
      });
      figures.push(
        {
          name: `DBOS, ${processes} process${plural} (runs resumed)`,
          value: round(sizes.runs / seconds),
          unit: "runs/s",
        },
        {
          name: `DBOS, ${processes} process${plural}, worker CPU per run`,
          value: round(cpuMs / sizes.runs),
          unit: "ms/run",
        },
        {
          // Every statement of every connection of the processes, the wakes' included.
          name: `DBOS, ${processes} process${plural}, database round trips per resumed run (one call each)`,
          value: roundTo(roundTrips / sizes.runs, 2),
          unit: "statements/run",
        },
      );
    }

    // Enqueue to start: a run started on an idle process, to its first step.
    const idle = await startFleet("idle", 1);
    const startLatencies: number[] = [];
    for (let sample = 0; sample < sizes.latencySamples; sample++) {
      await sleep(50 + Math.random() * 100);
      const runId = `idle-${sample}-${randomUUID()}`;
      const taken = idle.fleet[0]!.next(
        (message) => message.taken === true && message.runId === runId,
      );
      idle.fleet[0]!.send({ start: runId });
      startLatencies.push((await taken).waitedMs ?? Number.NaN);
    }
    // The runs go on to ask their question: stopped only once they wait.
    const settled = idle.fleet[0]!.next((message) => message.waiting !== undefined);
    idle.fleet[0]!.send({ settle: sizes.latencySamples });
    await settled;
    await stopFleet(idle.fleet);
    counts.enqueueSamples = startLatencies.length;

    // Answer to resumed run after wake: runs waiting, answered one at a time.
    const latency = await startFleet("latency", 1);
    const worker = latency.fleet[0]!;
    await suspend(latency.fleet, sizes.latencySamples);
    const latencies: number[] = [];
    for (const { run_id: runId, interaction } of await questions(latency.runStoreSchema)) {
      await sleep(50 + Math.random() * 100);
      const ended = worker.next((message) => message.runId === runId && message.at !== undefined);
      const answeredAt = Date.now();
      messaging.answerInteraction(interaction, "approve");
      worker.send({ wake: runId });
      const done = await ended;
      if (done.status !== "completed") throw new Error(`run ${runId} ended ${done.status}`);
      latencies.push((done.at ?? Number.NaN) - answeredAt);
    }
    await stopFleet(latency.fleet);
    counts.latencySamples = latencies.length;
    figures.push(
      {
        name: "DBOS, start to first step, idle process (p50)",
        value: round(percentile(startLatencies, 0.5)),
        unit: "ms",
      },
      {
        name: "DBOS, start to first step, idle process (p99)",
        value: round(percentile(startLatencies, 0.99)),
        unit: "ms",
      },
      {
        name: "DBOS, answer to resumed run after wake (p50)",
        value: round(median(latencies)),
        unit: "ms",
      },
      {
        name: "DBOS, answer to resumed run after wake (p99)",
        value: round(percentile(latencies, 0.99)),
        unit: "ms",
      },
    );
    return {
      figures,
      counts,
      engine: {
        runs: sizes.runs,
        fleets,
        enqueueToStartMs: {
          p50: round(percentile(startLatencies, 0.5)),
          p99: round(percentile(startLatencies, 0.99)),
        },
        answerToResumeMs: {
          p50: round(median(latencies)),
          p99: round(percentile(latencies, 0.99)),
        },
      },
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop().catch(() => {})));
    for (const schema of schemas) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    }
    if (!shared) await bench.close();
  }
}

/** Starts a DBOS worker process; resolves once it launched. */
async function startDbosWorker(args: readonly string[], label: string): Promise<DbosWorker> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./dbos-worker-process.ts", import.meta.url).pathname, ...args],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const messages: DbosMessage[] = [];
  const waiters: Array<{
    matches: (message: DbosMessage) => boolean;
    resolve: (message: DbosMessage) => void;
    reject: (error: Error) => void;
  }> = [];
  let exitedWith: string | undefined;
  const exited = new Promise<void>((resolve) =>
    // "close": its output read to the end, its last line included.
    child.once("close", (code, signal) => {
      exitedWith = `DBOS worker ${label} exited with ${signal ?? code}`;
      for (const waiter of waiters.splice(0)) waiter.reject(new Error(exitedWith));
      resolve();
    }),
  );
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const message = JSON.parse(line) as DbosMessage;
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.matches(message)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const worker: DbosWorker = {
    count: (matches) => messages.filter(matches).length,
    send(command) {
      child.stdin!.write(`${JSON.stringify(command)}\n`);
    },
    next(matches, from) {
      const found = from === undefined ? undefined : messages.slice(from).find(matches);
      if (found) return Promise.resolve(found);
      if (exitedWith) return Promise.reject(new Error(exitedWith));
      return new Promise((resolve, reject) => waiters.push({ matches, resolve, reject }));
    },
    async stop() {
      const last = worker.next((message) => message.cpuMs !== undefined, 0);
      if (!exitedWith) child.kill("SIGTERM");
      await exited;
      const { cpuMs = 0, roundTrips = 0 } = await last;
      return { cpuMs, roundTrips };
    },
  };
  await worker.next((message) => message.ready === true);
  return worker;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
