import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { newRunId } from "../../src/agent/durable/run-id.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";

let messaging: MessagingSimulator;
let orders: OrdersSimulator;
const children = new Set<ChildProcess>();
const dbosSchema = uniqueSchema("dbos");
const runSchema = uniqueSchema("dbos_runs");

beforeAll(async () => {
  [messaging, orders] = await Promise.all([
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
});

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await Promise.all([messaging?.close(), orders?.close()]);
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  try {
    for (const schema of [dbosSchema, runSchema]) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  } finally {
    await admin.end();
  }
});

const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** A process of the durable agent (see dbos-run-process.ts): what it said, and everything else it wrote. */
interface RunProcess {
  lines: Array<{ model?: string; shutdown?: string }>;
  /** Its log: stderr, and stdout lines that are not the process's own JSON lines. */
  log: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  child: ChildProcess;
}

/** Starts a process of the durable agent; resolves once it launched DBOS and started its runs. */
async function startProcess(environment: Record<string, string>): Promise<RunProcess> {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./dbos-run-process.ts", import.meta.url).pathname],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...environment } },
  );
  children.add(child);
  const started: RunProcess = {
    lines: [],
    log: [],
    child,
    // "close", not "exit": it comes after the last line of stdout was read, so
    // what the process said just before it died is known once it has ended.
    exited: new Promise((resolve) =>
      child.once("close", (code, signal) => {
        children.delete(child);
        resolve({ code, signal });
      }),
    ),
  };
  createInterface({ input: child.stderr! }).on("line", (line) => started.log.push(line));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      let message: { ready?: boolean; model?: string; shutdown?: string };
      try {
        message = JSON.parse(line);
      } catch {
        started.log.push(line);
        return;
      }
      if (message.ready) resolve();
      else started.lines.push(message);
    });
    void started.exited.then(({ code, signal }) =>
      reject(new Error(`the process exited before it was ready, with ${signal ?? code}`)),
    );
  });
  return started;
}

/** Waits until the stored run satisfies `condition`; resolves with its state. */
async function storedRun(
  store: PostgresRunStore,
  runId: string,
  condition: (state: RunState) => boolean,
  what: string,
): Promise<RunState> {
  for (let tries = 0; tries < 6_000; tries += 1) {
    const state = await store.load(runId).catch(() => undefined);
    if (state && condition(state)) return state;
    await sleep(10);
  }
  throw new Error(`gave up waiting for run ${runId} ${what}`);
}

it("shutdown() during a slow approved call: waits for the call, closes no pool under it, and the next process completes the run with the call run once", async () => {
  const store = new PostgresRunStore({ connectionString: testDatabaseUrl(), schema: runSchema });
  try {
    const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
    const [created] = await client.createCallbacks([
      {
        url: `https://hooks.example.com/dbos/shutdown-${randomUUID()}`,
        message_type: "orderEvent",
      },
    ]);
    const id = created?.id ?? "";
    const runId = newRunId();
    const task = `Delete callback ${id}`;
    const environment = {
      DBOS_TEST_DATABASE_URL: testDatabaseUrl(),
      DBOS_TEST_DBOS_SCHEMA: dbosSchema,
      DBOS_TEST_RUN_SCHEMA: runSchema,
      DBOS_TEST_EXECUTOR: "first",
      DBOS_TEST_SERVICES: JSON.stringify({
        ordersUrl: orders.url,
        ordersToken: orders.token,
        messagingUrl: messaging.url,
        messagingToken: messaging.token ?? "",
        approverLinkId: messaging.approverLinkId,
      }),
    };

    const first = await startProcess({
      ...environment,
      DBOS_TEST_RUNS: JSON.stringify([{ runId, task }]),
      // The deletion answered, the process shuts itself down while the tool takes 1.5 s more.
      DBOS_TEST_SHUTDOWN_AT: "in-call",
      DBOS_TEST_DIE_FOR: id,
      DBOS_TEST_AFTER_CALL_MS: "1500",
    });
    const waiting = await storedRun(
      store,
      runId,
      (state) => state.status === "suspended" && !!state.pendingCalls[0]?.interactionId,
      "to wait for its answer",
    );
    messaging.answerInteraction(waiting.pendingCalls[0]?.interactionId ?? "", "approve");
    // No process.exit(): the process ends once shutdown() closed all it opened.
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.lines.filter((line) => line.shutdown)).toEqual([
      { shutdown: "begun" },
      { shutdown: "done" },
    ]);
    // The store was closed by shutdown(): the call's end was saved before it resolved, and the run was not ended.
    const stopped = await store.load(runId);
    expect(stopped.status).toBe("running");
    expect(stopped.finishedCalls?.map((call) => call.status)).toEqual(["succeeded"]);

    // A restart of the process (its executor id) recovers the run, and the model gives its last answer.
    const second = await startProcess(environment);
    const ended = await storedRun(
      store,
      runId,
      (state) => state.status !== "suspended" && state.status !== "running",
      "to end",
    );
    second.child.kill("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });

    expect(ended.status).toBe("completed");
    expect(ended.finishedCalls?.map((call) => call.status)).toEqual(["succeeded"]);
    const deletions = orders.requests.filter(
      (request) =>
        request.method === "DELETE" &&
        request.path === "/callbacks" &&
        (request.body as string[]).includes(id),
    );
    expect(deletions).toHaveLength(1);
    const requestsOf = (process: RunProcess) =>
      process.lines.filter((line) => line.model === task).length;
    // The first process asked for the call, the second for the last answer: none asked twice.
    expect([requestsOf(first), requestsOf(second)]).toEqual([1, 1]);
    expect([...first.log, ...second.log].join("\n")).not.toMatch(
      /Cannot use a pool|has been shut down/i,
    );
  } finally {
    await store.close();
  }
});
