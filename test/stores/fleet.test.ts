import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildFleetAgent, type FleetServices, fleetServicesOf } from "../../bench/fleet-agent.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import { runConcurrently } from "../../src/agent/run-concurrently.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { uniqueSchema } from "../helpers/postgres-test-database.js";
import { startTestPostgres, type TestPostgres } from "../helpers/start-test-postgres.js";

const runCount = 150;
const workerCount = 3;
const leaseMs = 2_000;
/** The chance a worker kills itself at each point of an approved call (see fleet-worker-process.ts). */
const dieChance = 0.06;
/** The points of an approved call where a worker may die (see fleet-worker-process.ts). */
const deathPoints = ["before-start", "after-start", "in-call"] as const;
type DeathPoint = (typeof deathPoints)[number];

// A server of this file's own: the test restarts it and cuts its sessions.
let server: TestPostgres;
let messaging: MessagingSimulator;
let orders: OrdersSimulator;
const children: ChildProcess[] = [];

beforeAll(async () => {
  [server, messaging, orders] = await Promise.all([
    startTestPostgres({ durable: false }),
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
}, 120_000);

afterAll(async () => {
  await stopEveryWorker();
  await Promise.all([messaging?.close(), orders?.close()]);
  await server?.stop();
});

const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** A worker process, what it said, and how it ended. */
interface Worker {
  owner: string;
  child: ChildProcess;
  /** Where it killed itself, when it did. */
  dying?: { dying: string; runId?: string; ids?: string[] } | undefined;
  /** The point where it dies for certain, the first time it reaches it. */
  plannedDeath?: DeathPoint | undefined;
  killedByTest: boolean;
  /** Sent SIGTERM by the test at the end: it finishes the runs in hand and exits 0. */
  stoppedByTest: boolean;
  settled: Array<{ runId: string; status?: string; error?: string }>;
  exited: Promise<WorkerEnd>;
}

/** How a worker process ended. */
interface WorkerEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What is wrong with how `worker` ended, or undefined when its end is the one its fate calls for. */
function unexpectedEnd(worker: Worker, end: WorkerEnd): string | undefined {
  const how = end.signal ?? `exit code ${end.code}`;
  if (worker.dying) {
    return end.signal === "SIGKILL"
      ? undefined
      : `${worker.owner} said it was dying at ${worker.dying.dying} (SIGKILL) but ended with ${how}`;
  }
  if (worker.killedByTest) {
    return end.signal === "SIGKILL"
      ? undefined
      : `${worker.owner}, killed by the test with SIGKILL, ended with ${how}`;
  }
  if (worker.stoppedByTest) {
    return end.code === 0 ? undefined : `${worker.owner}, stopped with SIGTERM, ended with ${how}`;
  }
  return `${worker.owner} ended on its own, unasked, with ${how}`;
}

/**
 * Whether `worker` still runs and the test sent it no signal. A worker that
 * killed itself has a signalCode and no exitCode, and was not "killed" by the test.
 */
function running(worker: Worker): boolean {
  const { child } = worker;
  return child.exitCode === null && child.signalCode === null && !child.killed;
}

/** Starts a worker process, dying for certain at `dieFirstAt` when given; resolves once it is ready. */
async function startWorker(
  owner: string,
  schema: string,
  services: FleetServices,
  dieFirstAt?: DeathPoint,
) {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./fleet-worker-process.ts", import.meta.url).pathname],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        FLEET_DATABASE_URL: `${server.url}?application_name=fleet-worker`,
        FLEET_SCHEMA: schema,
        FLEET_SERVICES: JSON.stringify(services),
        FLEET_OWNER: owner,
        FLEET_CONCURRENCY: "4",
        FLEET_LEASE_MS: String(leaseMs),
        FLEET_DIE: String(dieChance),
        ...(dieFirstAt ? { FLEET_DIE_FIRST_AT: dieFirstAt } : {}),
      },
    },
  );
  children.push(child);
  const worker: Worker = {
    owner,
    child,
    plannedDeath: dieFirstAt,
    killedByTest: false,
    stoppedByTest: false,
    settled: [],
    // "close", not "exit": it comes after the last line of stdout was read, so
    // a worker that said it was dying just before it died is known to have said so.
    exited: new Promise((resolve) =>
      child.once("close", (code, signal) => resolve({ code, signal })),
    ),
  };
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (message.ready) resolve();
      else if (typeof message.dying === "string")
        worker.dying = message as NonNullable<Worker["dying"]>;
      else worker.settled.push(message as Worker["settled"][number]);
    });
    child.once("error", (error) =>
      reject(new Error(`worker ${owner} could not be started: ${error.message}`)),
    );
    void worker.exited.then(({ code, signal }) =>
      reject(new Error(`worker ${owner} exited before it was ready, with ${signal ?? code}`)),
    );
  });
  return worker;
}

it("a fleet under kills, cut connections and a server restart sends each approved call to the service exactly once (reconciling calls cut short), never a denied one, and no worker exits on its own", async () => {
  const schema = uniqueSchema("fleet");
  const store = new PostgresRunStore({ connectionString: server.url, schema, leaseMs });
  const admin = new pg.Pool({ connectionString: server.url, max: 2 });
  admin.on("error", () => {});
  /** An administrator's statement, tried again while the server restarts. */
  const adminQuery = async <Row extends pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ) => {
    for (;;) {
      try {
        return (await admin.query<Row>(text, values)).rows;
      } catch {
        await sleep(50);
      }
    }
  };
  const count = async (where: string) =>
    Number(
      (
        await adminQuery<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".runs WHERE ${where}`)
      )[0]?.n,
    );
  const services = fleetServicesOf(orders, messaging);
  // Set on every way out of the test: a worker that exits then is not replaced.
  let stopping = false;
  try {
    // Suspend the runs: each asks to delete a callback of its own, and waits for the answer.
    const idsOf = new Map<string, string>();
    const runOfId = new Map<string, string>();
    const interactionOf = new Map<string, string>();
    // A callback of its own for each run to delete, registered at the service.
    const callbackIds: string[] = [];
    const ordersClient = new OrderClient({ baseUrl: orders.url, token: orders.token });
    for (let first = 0; first < runCount; first += 50) {
      const created = await ordersClient.createCallbacks(
        Array.from({ length: Math.min(50, runCount - first) }, (_, index) => ({
          url: `https://hooks.example.com/fleet/${first + index}-${randomUUID()}`,
          message_type: "orderEvent",
        })),
      );
      callbackIds.push(...created.map((callback) => callback.id));
    }
    orders.clearRequests();
    const starter = buildFleetAgent(services, store, {
      steps: callbackIds.map((id) => ({
        toolCalls: [{ name: "delete_callbacks", arguments: { ids: [id] } }],
      })),
    });
    await runConcurrently(
      Array.from({ length: runCount }, (_, index) => index),
      16,
      async () => {
        const result = await starter.run("Delete the callback.", { suspendOnApproval: true });
        expect(result.status).toBe("suspended");
        const call = result.state?.pendingCalls[0];
        const runId = result.runId ?? "";
        const id = (call?.arguments as { ids: string[] } | undefined)?.ids[0] ?? "";
        idsOf.set(runId, id);
        runOfId.set(id, runId);
        interactionOf.set(runId, call?.interactionId ?? "");
      },
    );
    expect(idsOf.size).toBe(runCount);

    // Answer every question: most approve, every seventh denies.
    const denied = new Set<string>();
    [...interactionOf.entries()].forEach(([runId, interactionId], index) => {
      const deny = index % 7 === 0;
      if (deny) denied.add(runId);
      messaging.answerInteraction(interactionId, deny ? "deny" : "approve");
    });

    const heldBy = async (owner: string) =>
      (
        await adminQuery<{ run_id: string }>(
          `SELECT run_id FROM "${schema}".runs
            WHERE lease_owner = $1 AND lease_expires_at > now() AND status <> 'completed'`,
          [owner],
        )
      ).map((row) => row.run_id);

    // The fleet, kept at its size: a worker that dies (as planned) is replaced.
    const fleet: Worker[] = [];
    const unexpectedExits: string[] = [];
    const heldByKilled = new Set<string>();
    // What the test does on each worker's end (replace it, note its runs); awaited before the checks.
    const endsHandled: Array<Promise<void>> = [];
    let started = 0;
    // Each point is tried for certain, not left to chance: a new worker is
    // told to die at a point no worker has died at yet and no live one is told.
    const untriedPoint = (): DeathPoint | undefined =>
      deathPoints.find(
        (point) =>
          !fleet.some(
            (worker) =>
              worker.dying?.dying === point || (worker.plannedDeath === point && running(worker)),
          ),
      );
    const launch = async (): Promise<void> => {
      if (stopping) return;
      started++;
      let worker: Worker;
      try {
        worker = await startWorker(`worker-${started}`, schema, services, untriedPoint());
      } catch (error) {
        // A worker that exits before it is ready is one that exited on its own:
        // the test signals no worker before it is ready, stopping or not.
        unexpectedExits.push((error as Error).message);
        return;
      }
      fleet.push(worker);
      // Ready only once the test was stopping: it is stopped as the others are.
      if (stopping) {
        worker.stoppedByTest = true;
        worker.child.kill("SIGTERM");
      }
      endsHandled.push(
        worker.exited.then(async (end) => {
          const unexpected = unexpectedEnd(worker, end);
          if (unexpected) {
            unexpectedExits.push(unexpected);
            return;
          }
          if (worker.stoppedByTest) return;
          // Every run it had in hand (several at once) lost its owner, not only the one it died on.
          for (const runId of await heldBy(worker.owner)) heldByKilled.add(runId);
          if (!stopping) await launch();
        }),
      );
    };
    for (let index = 0; index < workerCount; index++) await launch();
    const live = () => fleet.filter(running);
    // Faults, until every run ended: sessions cut in a loop; a worker killed
    // now and then, every other time only while it holds nothing (idle); and
    // the server restarted once a third of the runs ended.
    let cuts = 0;
    let idleKills = 0;
    let restarts = 0;
    let faulting = true;
    const cutter = (async () => {
      while (faulting) {
        const cut = await adminQuery<{ pid: number }>(
          `SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
            WHERE application_name = 'fleet-worker' AND pid <> pg_backend_pid()`,
        );
        cuts += cut.length;
        await sleep(300);
      }
    })();
    const killer = (async () => {
      for (let round = 0; faulting; round++) {
        await sleep(1_500);
        const candidates = live();
        const victim = candidates[Math.floor(Math.random() * candidates.length)];
        if (!victim || !faulting) continue;
        const held = await heldBy(victim.owner);
        if (round % 2 === 0 && held.length > 0) continue;
        if (held.length === 0) idleKills++;
        victim.killedByTest = true;
        victim.child.kill("SIGKILL");
        for (const runId of held) heldByKilled.add(runId);
        // Runs it took between the query and the kill.
        for (const runId of await heldBy(victim.owner)) heldByKilled.add(runId);
      }
    })();
    const restarter = (async () => {
      while (faulting && (await count("status = 'completed'")) < runCount / 3) await sleep(50);
      if (!faulting) return;
      await server.stopServer();
      await sleep(500);
      await server.startServer();
      restarts++;
    })();

    const deadline = Date.now() + 200_000;
    while (
      unexpectedExits.length === 0 &&
      (await count("status <> 'completed'")) > 0 &&
      Date.now() < deadline
    ) {
      await sleep(100);
    }
    faulting = false;
    await Promise.all([cutter, killer, restarter]);
    // An unexpected exit first: it explains runs left unfinished by a fleet that shrank.
    expect(unexpectedExits).toEqual([]);
    expect(await count("status <> 'completed'")).toBe(0);

    // Every worker's end is awaited and explained: a worker stopped by SIGTERM
    // exits 0, one killed (by itself, as planned, or by the test) ends by SIGKILL.
    stopping = true;
    for (const worker of live()) {
      worker.stoppedByTest = true;
      worker.child.kill("SIGTERM");
    }
    // Replacements started before the stop add their own ends to the list.
    for (let index = 0; index < endsHandled.length; index++) await endsHandled[index];
    expect(unexpectedExits).toEqual([]);

    // Every fault happened.
    const deaths = fleet.flatMap((worker) => (worker.dying ? [worker.dying] : []));
    const diedAt = (point: string) => deaths.filter((death) => death.dying === point);
    expect(diedAt("before-start").length).toBeGreaterThan(0);
    expect(diedAt("after-start").length + diedAt("in-call").length).toBeGreaterThan(0);
    expect(restarts).toBe(1);
    expect(cuts).toBeGreaterThan(0);
    expect(idleKills + heldByKilled.size).toBeGreaterThan(0);

    // Runs whose worker killed itself after the start record: the next owner reconciles them.
    const diedAfterStart = new Set<string>([
      ...diedAt("after-start").map((death) => death.runId ?? ""),
      ...diedAt("in-call").flatMap((death) => (death.ids ?? []).map((id) => runOfId.get(id) ?? "")),
    ]);
    const diedBeforeStart = new Set(diedAt("before-start").map((death) => death.runId ?? ""));

    const deletions = new Map<string, number>();
    for (const request of orders.requests) {
      if (request.method !== "DELETE" || request.path !== "/callbacks") continue;
      for (const id of request.body as string[]) deletions.set(id, (deletions.get(id) ?? 0) + 1);
    }
    // Every run's summary: more runs than one page of the default listing holds.
    const listed = await store.list({ limit: 1000 });
    expect(listed.nextCursor).toBeUndefined();
    const summaries = new Map(listed.runs.map((run) => [run.runId, run]));
    const stillRegistered = new Set(orders.callbacks().map((callback) => callback.id));
    let reconciled = 0;
    for (const [runId, id] of idsOf) {
      const state: RunState = await store.load(runId);
      expect(state.status).toBe("completed");
      const told = state.messages.find((message) => message.role === "tool")?.content ?? "";
      expect(told).not.toContain("already_used");
      // No call is left of unknown outcome: an interrupted one is reconciled with the service.
      expect(told, `run ${runId}`).not.toContain("outcome_unknown");
      expect(summaries.get(runId)?.outcomeUnknownCalls).toBeUndefined();
      if (denied.has(runId)) {
        expect(deletions.get(id) ?? 0).toBe(0);
        expect(stillRegistered.has(id)).toBe(true);
        expect(told).toContain("approval_refused");
        continue;
      }
      expect(stillRegistered.has(id), `the approved deletion of run ${runId} took effect`).toBe(
        false,
      );
      // Its owner lost after the start record (killed, or its lease lapsed while
      // the server restarted on a loaded machine): the next owner waited until
      // that owner could no longer act, then asked the service, which had the
      // cut call's deletion or none. Killed before the start was written: the
      // approval stayed unspent (no already_used above), and the next owner
      // used it. Either way, one deletion request reached the service.
      if (told.includes('"reconciled":true')) reconciled++;
      expect(deletions.get(id), `the approved deletion of run ${runId}`).toBe(1);
    }
    expect(diedBeforeStart.size).toBeGreaterThan(0);
    // The planned deaths after the start record were reconciled by the next owner.
    for (const runId of diedAfterStart) {
      const state: RunState = await store.load(runId);
      const told = state.messages.find((message) => message.role === "tool")?.content ?? "";
      expect(told, `run ${runId}, its worker killed after the start`).toContain(
        '"reconciled":true',
      );
    }
    expect(reconciled).toBeGreaterThanOrEqual(diedAfterStart.size);
    // Each question was asked once: resuming reads answers, it never asks again.
    const questions = messaging.requests.filter(
      (request) => request.method === "POST" && request.path === "/v1/messages",
    );
    expect(questions).toHaveLength(runCount);
  } finally {
    stopping = true;
    await stopEveryWorker();
    await admin.end();
    await store.close();
  }
}, 400_000);

/** Kills every worker process still running and waits for each to exit. */
async function stopEveryWorker(): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }),
  );
}
