import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildFleetAgent, fleetServicesOf } from "../../bench/fleet-agent.js";
import type { RunClaim, RunClaimDueOptions, RunQueue } from "../../src/agent/durable/run-queue.js";
import { type RunStore, runStoreMethods } from "../../src/agent/durable/run-store.js";
import { RunWorker, type RunWorkerOutcome } from "../../src/agent/durable/run-worker.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import type { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { testDatabaseUrl, usePostgresStores } from "../helpers/postgres-test-database.js";
import { until, workUntil } from "../helpers/work-until.js";

let messaging: MessagingSimulator;
let orders: OrdersSimulator;
let admin: pg.Client;
const makeStore = usePostgresStores("rechecks");

beforeAll(async () => {
  [messaging, orders] = await Promise.all([
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
  admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
});

afterAll(async () => {
  await admin?.end();
  await Promise.all([messaging?.close(), orders?.close()]);
});

/** The run's row as the database holds it: what a rewrite of the state would change. */
async function rowOf(store: PostgresRunStore, runId: string) {
  const { rows } = await admin.query(
    `SELECT revision, octet_length(state::text) AS bytes, md5(state::text) AS digest,
            updated_at, write_id
       FROM "${store.schema}".runs WHERE run_id = $1`,
    [runId],
  );
  return rows[0];
}

/** Reads of the interaction's answer the messaging service has received. */
function readsOf(interactionId: string): number {
  return messaging.requests.filter(
    (request) => request.method === "GET" && request.path === `/v1/interactions/${interactionId}`,
  ).length;
}

/** Reads of each interaction's answer made by the run that asked it (a durable run's one read). */
const readsWhenSuspended = new Map<string, number>();

/** Reads of the interaction's answer since its run suspended: the workers' checks. */
function checksOf(interactionId: string): number {
  return readsOf(interactionId) - (readsWhenSuspended.get(interactionId) ?? 0);
}

/** Starts `count` runs that each suspend at one approval; returns their interactions, in order. */
async function suspendRuns(store: PostgresRunStore, count: number): Promise<string[]> {
  const starter = buildFleetAgent(fleetServicesOf(orders, messaging), store, {
    steps: Array.from({ length: count }, () => ({
      toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }],
    })),
  });
  const interactions: string[] = [];
  for (let index = 0; index < count; index++) {
    const started = await starter.run("Delete the callback.", { suspendOnApproval: true });
    const interactionId = started.state?.pendingCalls[0]?.interactionId ?? "";
    readsWhenSuspended.set(interactionId, readsOf(interactionId));
    interactions.push(interactionId);
  }
  return interactions;
}

it("a recheck of a run nobody answered asks once and moves only its next check; the answer, once given, goes through the resume", async () => {
  const store = makeStore();
  const services = fleetServicesOf(orders, messaging);
  const callbackId = randomUUID();
  const starter = buildFleetAgent(services, store, {
    steps: [{ toolCalls: [{ name: "delete_callbacks", arguments: { ids: [callbackId] } }] }],
  });
  const started = await starter.run("Delete the callback.", { suspendOnApproval: true });
  expect(started.status).toBe("suspended");
  const runId = started.runId ?? "";
  const interactionId = started.state?.pendingCalls[0]?.interactionId ?? "";
  readsWhenSuspended.set(interactionId, readsOf(interactionId));
  const before = await rowOf(store, runId);

  const settled: RunWorkerOutcome[] = [];
  const worker = new RunWorker({
    runStore: store,
    agent: buildFleetAgent(services, store),
    pollIntervalMs: 10,
    firstRecheckAfterMs: 10,
    recheckAfterMs: 20,
    onRunSettled: (outcome) => settled.push(outcome),
  });
  const working = worker.start();
  try {
    await until(() => settled.length >= 5, "five rechecks");
    const stillPending = settled.filter((outcome) => outcome.stillPending);
    expect(stillPending.length).toBe(settled.length);
    expect(settled.every((outcome) => outcome.result === undefined && !outcome.error)).toBe(true);
    // One read of the answer per recheck, and not a byte of the state rewritten.
    expect(checksOf(interactionId)).toBeGreaterThanOrEqual(5);
    expect(await rowOf(store, runId)).toEqual(before);

    messaging.answerInteraction(interactionId, "approve");
    await until(
      () => settled.some((outcome) => outcome.result?.status === "completed"),
      "the answered run to complete",
    );
  } finally {
    await worker.stop();
    await working;
  }
  const deletions = orders.requests.filter(
    (request) => request.method === "DELETE" && JSON.stringify(request.body).includes(callbackId),
  );
  expect(deletions).toHaveLength(1);
  const after = await store.load(runId);
  expect(after.status).toBe("completed");
  expect(after.finishedCalls?.map((call) => call.status)).toEqual(["succeeded"]);
}, 60_000);

it("a run whose resume fails is tried again with a backoff, its attempts and last error recorded", async () => {
  const store = makeStore();
  const services = fleetServicesOf(orders, messaging);
  const starter = buildFleetAgent(services, store, {
    steps: [{ toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }] }],
  });
  const started = await starter.run("Delete the callback.", { suspendOnApproval: true });
  const runId = started.runId ?? "";
  const settled: RunWorkerOutcome[] = [];
  const worker = new RunWorker({
    runStore: store,
    agent: () => {
      throw new Error("the agent for this run could not be built (no model key)");
    },
    pollIntervalMs: 10,
    firstRecheckAfterMs: 10,
    recheckAfterMs: 3_600_000,
    onRunSettled: (outcome) => settled.push(outcome),
  });
  await workUntil(worker, () => settled.length >= 3, "three failed attempts");
  expect(settled.every((outcome) => outcome.error !== undefined)).toBe(true);
  const schedule = await store.schedule(runId);
  expect(schedule?.attempts).toBe(settled.length);
  expect(schedule?.lastError).toBe("the agent for this run could not be built (no model key)");
  expect((await store.load(runId)).status).toBe("suspended");
}, 60_000);

it("the fleet keeps to its budget of approval checks with many runs due: the messaging service is asked no more than the budget allows, the run due longest ago first", async () => {
  const store = makeStore();
  const services = fleetServicesOf(orders, messaging);
  const runCount = 40;
  const interactions = await suspendRuns(store, runCount);
  const reads = () => interactions.reduce((total, id) => total + checksOf(id), 0);
  expect(reads()).toBe(0);

  // One check saved up, the next a thousand seconds later: however many
  // workers look, and however often, one question is asked about.
  let looks = 0;
  const claimDue = store.claimDue.bind(store);
  store.claimDue = (options) => {
    looks++;
    return claimDue(options);
  };
  const workers = Array.from(
    { length: 3 },
    () =>
      new RunWorker({
        runStore: store,
        agent: buildFleetAgent(services, store),
        approvalChecksPerSecond: 0.001,
        pollIntervalMs: 5,
        firstRecheckAfterMs: 3_600_000,
        recheckAfterMs: 3_600_000,
      }),
  );
  const working = workers.map((worker) => worker.start());
  try {
    await until(() => reads() >= 1, "the first check");
    const after = looks;
    await until(() => looks >= after + 60, "sixty more looks for due runs");
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await Promise.all(working);
  }
  expect(reads()).toBe(1);
  expect(checksOf(interactions[0] ?? "")).toBe(1);
  const { rows } = await admin.query(
    `SELECT count(*)::int AS due FROM "${store.schema}".runs
      WHERE status = 'suspended' AND next_check_at <= now()`,
  );
  // The one asked about waits for its next check; the others wait their turn.
  expect(rows[0].due).toBe(runCount - 1);
}, 60_000);

it("a worker with several free slots fills them with one claim statement", async () => {
  const store = makeStore();
  const services = fleetServicesOf(orders, messaging);
  const runCount = 6;
  const interactions = await suspendRuns(store, runCount);
  // What each claim statement the worker sends hands out.
  const handedOut: number[] = [];
  const claimDue = store.claimDue.bind(store);
  store.claimDue = async (options) => {
    const claims = await claimDue(options);
    handedOut.push(claims.length);
    return claims;
  };
  const claimNext = store.claimNext.bind(store);
  store.claimNext = async (options) => {
    const claim = await claimNext(options);
    handedOut.push(claim ? 1 : 0);
    return claim;
  };
  const settled: RunWorkerOutcome[] = [];
  const worker = new RunWorker({
    runStore: store,
    agent: buildFleetAgent(services, store),
    concurrency: 8,
    pollIntervalMs: 5,
    firstRecheckAfterMs: 3_600_000,
    recheckAfterMs: 3_600_000,
    onRunSettled: (outcome) => settled.push(outcome),
  });
  await workUntil(worker, () => settled.length >= runCount, "every run checked");
  // Every run due at once, eight slots free: the first statement takes all six.
  expect(handedOut[0]).toBe(runCount);
  expect(handedOut.reduce((total, count) => total + count, 0)).toBe(runCount);
  expect(settled.map((outcome) => outcome.stillPending !== undefined)).toEqual(
    Array.from({ length: runCount }, () => true),
  );
  expect(interactions.map(checksOf)).toEqual(Array.from({ length: runCount }, () => 1));
}, 60_000);

it("a worker takes due runs from the runQueue given, beside a store that is only a store", async () => {
  const store = makeStore();
  const runCount = 3;
  const interactions = await suspendRuns(store, runCount);
  // A store of one's own with only the store's methods, and the runs' queue beside it.
  const ownStore = Object.fromEntries(
    runStoreMethods.map((method) => [method, store[method].bind(store)]),
  ) as unknown as RunStore;
  const handedOut: number[] = [];
  const queue: RunQueue = Object.assign(Object.create(store) as PostgresRunStore, {
    claimDue: async (options: RunClaimDueOptions) => {
      const claims = await store.claimDue(options);
      handedOut.push(claims.length);
      return claims;
    },
  });
  const settled: RunWorkerOutcome[] = [];
  const worker = new RunWorker({
    runStore: ownStore,
    runQueue: queue,
    agent: buildFleetAgent(fleetServicesOf(orders, messaging), store),
    concurrency: 4,
    pollIntervalMs: 5,
    firstRecheckAfterMs: 3_600_000,
    recheckAfterMs: 3_600_000,
    onRunSettled: (outcome) => settled.push(outcome),
  });
  await workUntil(worker, () => settled.length >= runCount, "every run checked");
  expect(handedOut[0]).toBe(runCount);
  expect(interactions.map(checksOf)).toEqual([1, 1, 1]);
}, 60_000);

it("refuses a worker without a run queue, saying what to pass", () => {
  const store = makeStore();
  const ownStore = Object.fromEntries(
    runStoreMethods.map((method) => [method, store[method].bind(store)]),
  ) as unknown as RunStore;
  const agent = buildFleetAgent(fleetServicesOf(orders, messaging), store);
  expect(() => new RunWorker({ runStore: ownStore, agent })).toThrow(
    /A RunWorker needs a run queue to take due runs from: runStore is not one \(it lacks claim\(\), claimNext\(\), claimDue\(\), schedule\(\), wake\(\), waitForDue\(\)\); pass runQueue/,
  );
  const { claimDue: _left, ...lacking } = Object.fromEntries(
    ["claim", "claimNext", "claimDue", "schedule", "wake", "waitForDue"].map((method) => [
      method,
      () => undefined,
    ]),
  );
  expect(
    () => new RunWorker({ runStore: store, runQueue: lacking as unknown as RunQueue, agent }),
  ).toThrow(/runQueue must be a RunQueue; it lacks claimDue\(\)/);
});

it("refuses a budget of checks that is not a positive number, naming the option", () => {
  const store = makeStore();
  const agent = buildFleetAgent(fleetServicesOf(orders, messaging), store);
  for (const approvalChecksPerSecond of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    expect(() => new RunWorker({ runStore: store, agent, approvalChecksPerSecond })).toThrow(
      /approvalChecksPerSecond must be a positive number of approval checks per second/,
    );
  }
});

/** A store holding `count` runs suspended at one approval each, all due. */
async function storeWithWaitingRuns(count: number): Promise<PostgresRunStore> {
  const store = makeStore();
  await suspendRuns(store, count);
  return store;
}

/** The budget's shards that were paid from, with the checks each holds now. */
async function paidShards(
  store: PostgresRunStore,
): Promise<Array<{ shard: number; tokens: number }>> {
  const { rows } = await admin.query(
    `SELECT shard, tokens FROM "${store.schema}".check_budget_shards
      WHERE tokens IS NOT NULL ORDER BY shard`,
  );
  return rows;
}

/** Resolves what `promise` does, or "waited" when it has not settled after `boundMs`. */
async function unlessItWaits<T>(promise: Promise<T>, boundMs: number): Promise<T | "waited"> {
  const gaveUp = new AbortController();
  try {
    return await Promise.race([
      promise,
      sleep(boundMs, "waited" as const, { signal: gaveUp.signal }).catch(() => "waited" as const),
    ]);
  } finally {
    gaveUp.abort();
  }
}

it("a claim taking k runs waiting for answers pays k checks from one shard of the budget", async () => {
  const store = await storeWithWaitingRuns(5);
  // 32 a second: 16 shards, each holding two checks at most (full at first).
  const claims = await store.claimDue({ max: 5, checksPerSecond: 32 });
  expect(claims).toHaveLength(2);
  expect(await paidShards(store)).toEqual([{ shard: expect.any(Number), tokens: 0 }]);
  for (const claim of claims) await claim.release({ nextCheckAt: new Date(Date.now() + 60_000) });
});

it("a budget far beyond any count of runs hands out as many as asked for", async () => {
  const store = await storeWithWaitingRuns(3);
  // A rate meant as "no limit that matters": a shard's share is still
  // beyond what a bigint holds.
  const claims = await store.claimDue({ max: 3, checksPerSecond: Number.MAX_VALUE });
  expect(claims).toHaveLength(3);
  for (const claim of claims) await claim.release();
});

it("a budget of one check a second or less keeps one bucket holding one check", async () => {
  const store = await storeWithWaitingRuns(3);
  const taken: RunClaim[] = [];
  for (let call = 0; call < 3; call++) {
    taken.push(...(await store.claimDue({ max: 3, checksPerSecond: 0.001 })));
  }
  expect(taken).toHaveLength(1);
  expect(await paidShards(store)).toEqual([{ shard: 0, tokens: 0 }]);
  for (const claim of taken) await claim.release();
});

it("paying for checks never waits on another claim: a shard held elsewhere is passed over, and with all held only runs that are not checks are taken", async () => {
  const store = await storeWithWaitingRuns(2);
  await store.migrate();
  const holder = new pg.Client({ connectionString: testDatabaseUrl() });
  await holder.connect();
  try {
    // Another claim's transaction holds every shard but the last.
    await holder.query("BEGIN");
    await holder.query(
      `SELECT shard FROM "${store.schema}".check_budget_shards WHERE shard < 15 FOR UPDATE`,
    );
    const fromLast = await unlessItWaits(store.claimDue({ max: 1, checksPerSecond: 32 }), 10_000);
    expect(fromLast).not.toBe("waited");
    expect(fromLast).toHaveLength(1);
    expect(await paidShards(store)).toEqual([{ shard: 15, tokens: 1 }]);
    // Now every shard is held: the claim takes no check, and does not wait.
    await holder.query(`SELECT shard FROM "${store.schema}".check_budget_shards FOR UPDATE`);
    const none = await unlessItWaits(store.claimDue({ max: 2, checksPerSecond: 32 }), 10_000);
    expect(none).toEqual([]);
    await holder.query("ROLLBACK");
    const after = await store.claimDue({ max: 2, checksPerSecond: 32 });
    expect(after).toHaveLength(1);
    for (const claim of [...(fromLast === "waited" ? [] : fromLast), ...after]) {
      await claim.release();
    }
  } finally {
    await holder.query("ROLLBACK").catch(() => {});
    await holder.end();
  }
});

it("many claims at once keep the whole budget: the checks never outrun the saved-up checks and the refill", async () => {
  const store = await storeWithWaitingRuns(40);
  const rate = 20;
  const begun = Date.now();
  const taken: RunClaim[] = [];
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let call = 0; call < 8; call++) {
        taken.push(...(await store.claimDue({ max: 4, checksPerSecond: rate })));
      }
    }),
  );
  const refilled = ((Date.now() - begun) / 1000) * rate;
  expect(new Set(taken.map((claim) => claim.runId)).size).toBe(taken.length);
  // Sixteen shards of 1.25 checks, full at first: each pays for one at once.
  expect(taken.length).toBeGreaterThanOrEqual(16);
  expect(taken.length).toBeLessThanOrEqual(Math.floor(rate + refilled));
  for (const claim of taken) await claim.release();
});

it("workers given different budgets (100 and 1 a second) keep together to the larger one: the checks never outrun its saved-up checks and refill", async () => {
  const store = await storeWithWaitingRuns(1);
  // 300 copies of the waiting run, all due.
  await admin.query(
    `INSERT INTO "${store.schema}".runs (run_id, status, state, summary, revision, next_check_at)
     SELECT 'copy-' || g, status, jsonb_set(state, '{runId}', to_jsonb('copy-' || g)),
            jsonb_set(summary, '{runId}', to_jsonb('copy-' || g)), revision,
            now() - interval '1 minute'
       FROM "${store.schema}".runs, generate_series(1, 300) AS g`,
  );
  const begun = Date.now();
  const taken: RunClaim[] = [];
  await Promise.all(
    [100, 100, 1, 1].map(async (rate) => {
      for (let call = 0; call < 15; call++) {
        taken.push(...(await store.claimDue({ max: 10, checksPerSecond: rate })));
      }
    }),
  );
  const refilled = ((Date.now() - begun) / 1000) * 100;
  expect(new Set(taken.map((claim) => claim.runId)).size).toBe(taken.length);
  expect(taken.length).toBeGreaterThanOrEqual(16);
  expect(taken.length).toBeLessThanOrEqual(Math.floor(100 + refilled));
  for (const claim of taken) await claim.release();
});
