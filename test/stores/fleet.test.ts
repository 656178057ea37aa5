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
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import type { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { testDatabaseUrl, usePostgresStores } from "../helpers/postgres-test-database.js";

const runCount = 240;
const workerCount = 3;
const leaseMs = 1_500;

let messaging: MessagingSimulator;
let orders: OrdersSimulator;
const makeStore = usePostgresStores("fleet");
const workers: ChildProcess[] = [];

beforeAll(async () => {
  [messaging, orders] = await Promise.all([
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
});

afterAll(async () => {
  for (const worker of workers) worker.kill("SIGKILL");
  await Promise.all([messaging.close(), orders.close()]);
});

const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** Starts a worker process; resolves once it is ready, with the runs it reports settled. */
async function startWorker(owner: string, store: PostgresRunStore, services: FleetServices) {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./fleet-worker-process.ts", import.meta.url).pathname],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        FLEET_DATABASE_URL: testDatabaseUrl(),
        FLEET_SCHEMA: store.schema,
        FLEET_SERVICES: JSON.stringify(services),
        FLEET_OWNER: owner,
        FLEET_CONCURRENCY: "4",
        FLEET_LEASE_MS: String(leaseMs),
      },
    },
  );
  workers.push(child);
  const settled: Array<{ runId: string; recovered: boolean; status?: string }> = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const message = JSON.parse(line) as { ready?: boolean; runId: string; recovered: boolean };
      if (message.ready) resolve();
      else settled.push(message);
    });
    child.once("exit", (code) => reject(new Error(`worker ${owner} exited with ${code}`)));
  });
  return { child, settled, exited };
}

it("a fleet of workers finishes every run, runs each approved deletion once and a refused one never, and takes over a killed worker's runs", async () => {
  const store = makeStore({ leaseMs });
  const services = fleetServicesOf(orders, messaging);

  // Suspend the runs: each asks to delete a callback of its own, and waits for the answer.
  const idsOf = new Map<string, string>();
  const interactionOf = new Map<string, string>();
  const starter = buildFleetAgent(services, store, {
    steps: Array.from({ length: runCount }, () => ({
      toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }],
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
      idsOf.set(runId, (call?.arguments as { ids: string[] } | undefined)?.ids[0] ?? "");
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

  const fleet = await Promise.all(
    Array.from({ length: workerCount }, (_, index) =>
      startWorker(`worker-${index + 1}`, store, services),
    ),
  );
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  const count = async (where: string) =>
    Number(
      (await admin.query(`SELECT count(*) AS n FROM "${store.schema}".runs WHERE ${where}`)).rows[0]
        .n,
    );
  try {
    // Kill the first worker halfway, while it holds runs, and note them.
    while ((await count("status = 'completed'")) < runCount / 2) await sleep(10);
    while (
      (await count(
        `lease_owner = 'worker-1' AND lease_expires_at > now() AND status <> 'completed'`,
      )) === 0
    ) {
      await sleep(2);
    }
    const victim = fleet[0]!;
    victim.child.kill("SIGKILL");
    await victim.exited;
    const heldByVictim = (
      await admin.query<{ run_id: string }>(
        `SELECT run_id FROM "${store.schema}".runs
          WHERE lease_owner = 'worker-1' AND status <> 'completed'`,
      )
    ).rows.map((row) => row.run_id);

    const deadline = Date.now() + 120_000;
    while ((await count("status <> 'completed'")) > 0 && Date.now() < deadline) await sleep(50);
    expect(await count("status <> 'completed'")).toBe(0);

    for (const worker of fleet.slice(1)) worker.child.kill("SIGTERM");
    expect(await Promise.all(fleet.slice(1).map((worker) => worker.exited))).toEqual([0, 0]);

    // The killed worker held runs, and the others finished them.
    expect(heldByVictim.length).toBeGreaterThan(0);
    const finishedByOthers = new Set(
      fleet.slice(1).flatMap((worker) => worker.settled.map((settled) => settled.runId)),
    );
    for (const runId of heldByVictim) expect(finishedByOthers.has(runId)).toBe(true);

    // Deletions: exactly one per approved call, none for a refused one.
    const deletions = new Map<string, number>();
    for (const request of orders.requests) {
      if (request.method !== "DELETE" || request.path !== "/callbacks") continue;
      for (const id of request.body as string[]) deletions.set(id, (deletions.get(id) ?? 0) + 1);
    }
    for (const [runId, id] of idsOf) {
      const state: RunState = await store.load(runId);
      expect(state.status).toBe("completed");
      const told = state.messages.find((message) => message.role === "tool")?.content ?? "";
      if (denied.has(runId)) {
        expect(deletions.get(id) ?? 0).toBe(0);
        expect(told).toContain("approval_refused");
      } else if (told.includes("outcome_unknown")) {
        // Cut off mid-call by the kill: never run again, whatever reached the service.
        expect(heldByVictim).toContain(runId);
        expect(deletions.get(id) ?? 0).toBeLessThanOrEqual(1);
      } else if (told.includes("already_used")) {
        // Killed after the approval was spent but before the call started: fail closed.
        expect(heldByVictim).toContain(runId);
        expect(deletions.get(id) ?? 0).toBe(0);
      } else {
        expect(deletions.get(id)).toBe(1);
      }
    }
    // Each question was asked once: resuming reads answers, it never asks again.
    const questions = messaging.requests.filter(
      (request) => request.method === "POST" && request.path === "/v1/messages",
    );
    expect(questions).toHaveLength(runCount);
  } finally {
    await admin.end();
  }
}, 240_000);
