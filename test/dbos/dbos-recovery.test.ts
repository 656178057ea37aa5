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
const schemas: string[] = [];

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
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
});

const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** A process of the durable agent (see dbos-run-process.ts), and what it said. */
interface RunProcess {
  /** The requests the model was really sent, by the run's task. */
  modelRequests: string[];
  dying?: string;
  /** The runs it took over from another executor. */
  recovered?: string[];
  /** The lines it wrote on stderr (its log, as JSON lines, with `DBOS_TEST_LOG_LEVEL`). */
  stderrLines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  child: ChildProcess;
}

/** Starts a process of the durable agent; resolves once it launched DBOS (and started the run, with a task). */
async function startProcess(environment: Record<string, string>): Promise<RunProcess> {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./dbos-run-process.ts", import.meta.url).pathname],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...environment } },
  );
  children.add(child);
  const started: RunProcess = {
    modelRequests: [],
    stderrLines: [],
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
  createInterface({ input: child.stderr! }).on("line", (line) => {
    started.stderrLines.push(line);
    // Still shown, as when the process wrote to the test's own stderr.
    if (!environment.DBOS_TEST_LOG_LEVEL) process.stderr.write(`${line}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const message = JSON.parse(line) as {
        ready?: boolean;
        model?: string;
        dying?: string;
        recovered?: string[];
      };
      if (message.recovered) started.recovered = message.recovered;
      if (message.ready) resolve();
      if (message.model !== undefined) started.modelRequests.push(message.model);
      if (message.dying !== undefined) started.dying = message.dying;
    });
    void started.exited.then(({ code, signal }) =>
      reject(new Error(`the process exited before it was ready, with ${signal ?? code}`)),
    );
  });
  return started;
}

/** The environment of the processes of one test: DBOS's and the run store's schemas of its own, the simulators. */
function processEnvironment(): {
  environment: Record<string, string>;
  dbosSchema: string;
  runSchema: string;
} {
  const dbosSchema = uniqueSchema("dbos");
  const runSchema = uniqueSchema("dbos_runs");
  schemas.push(dbosSchema, runSchema);
  const environment = {
    DBOS_TEST_DATABASE_URL: testDatabaseUrl(),
    DBOS_TEST_DBOS_SCHEMA: dbosSchema,
    DBOS_TEST_RUN_SCHEMA: runSchema,
    DBOS_TEST_SERVICES: JSON.stringify({
      ordersUrl: orders.url,
      ordersToken: orders.token,
      messagingUrl: messaging.url,
      messagingToken: messaging.token ?? "",
      approverLinkId: messaging.approverLinkId,
    }),
  };
  return { environment, dbosSchema, runSchema };
}

/** Registers a callback at the orders simulator; resolves with its id. */
async function newCallback(label: string): Promise<string> {
  const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
  const [created] = await client.createCallbacks([
    { url: `https://hooks.example.com/dbos/${label}-${randomUUID()}`, message_type: "orderEvent" },
  ]);
  return created?.id ?? "";
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

it.each([
  ["asking", "after the model answered, before the approval was asked", "restarted"],
  ["in-call", "during the approved call, after its start record", "restarted"],
  ["in-call", "during the approved call, after its start record", "another executor"],
])(
  "a process killed %s (%s), %s: the run is recovered; the model is not asked again, the approved call ran once, the denied one never",
  async (dieAt, _when, recoveredBy) => {
    const { environment, runSchema } = processEnvironment();
    const store = new PostgresRunStore({ connectionString: testDatabaseUrl(), schema: runSchema });
    try {
      const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
      const [id = "", deniedId = ""] = (
        await client.createCallbacks(
          ["approved", "denied"].map((label) => ({
            url: `https://hooks.example.com/dbos/${label}-${randomUUID()}`,
            message_type: "orderEvent",
          })),
        )
      ).map((callback) => callback.id);
      const runId = newRunId();
      // A second run, whose question is denied: its call never runs, whichever process reads the answer.
      const deniedRunId = `${runId}-denied`;
      const answerWhenAsked = async (asking: string, answer: "approve" | "deny") => {
        const waiting = await storedRun(
          store,
          asking,
          (state) => state.status === "suspended" && !!state.pendingCalls[0]?.interactionId,
          "to wait for its answer",
        );
        messaging.answerInteraction(waiting.pendingCalls[0]?.interactionId ?? "", answer);
      };

      const first = await startProcess({
        ...environment,
        DBOS_TEST_EXECUTOR: "first",
        DBOS_TEST_RUNS: JSON.stringify([
          { runId: deniedRunId, task: `Delete callback ${deniedId}` },
          { runId, task: `Delete callback ${id}` },
        ]),
        DBOS_TEST_DIE_AT: dieAt,
        DBOS_TEST_DIE_FOR: id,
      });
      if (dieAt === "in-call") {
        await answerWhenAsked(deniedRunId, "deny");
        await answerWhenAsked(runId, "approve");
      }
      expect((await first.exited).signal).toBe("SIGKILL");
      expect(first.dying).toBe(dieAt);
      const task = `Delete callback ${id}`;
      const requestsOf = (process: RunProcess) =>
        process.modelRequests.filter((sent) => sent === task).length;
      expect(requestsOf(first)).toBe(1);
      if (dieAt === "asking") {
        // The model's answer was never saved by the run store: only DBOS's record of it can spare a second request.
        const saved = await store.load(runId).catch(() => undefined);
        expect(saved?.messages.some((message) => message.role === "assistant") ?? false).toBe(
          false,
        );
      }

      // A restarted process has the executor id of the one that died, and DBOS
      // recovers its runs at launch; another process takes them over by hand.
      const second = await startProcess(
        recoveredBy === "restarted"
          ? { ...environment, DBOS_TEST_EXECUTOR: "first" }
          : { ...environment, DBOS_TEST_EXECUTOR: "second", DBOS_TEST_RECOVER_EXECUTOR: "first" },
      );
      if (recoveredBy !== "restarted") {
        // The denied run too, when it had not ended before the kill.
        expect(second.recovered).toContain(runId);
        expect(second.recovered?.filter((id) => id !== runId && id !== deniedRunId)).toEqual([]);
      }
      if (dieAt === "asking") {
        await answerWhenAsked(deniedRunId, "deny");
        await answerWhenAsked(runId, "approve");
      }
      const ended = await storedRun(
        store,
        runId,
        (state) => state.status !== "suspended" && state.status !== "running",
        "to end",
      );
      const deniedEnded = await storedRun(
        store,
        deniedRunId,
        (state) => state.status !== "suspended" && state.status !== "running",
        "to end",
      );
      second.child.kill("SIGTERM");
      expect(await second.exited).toEqual({ code: 0, signal: null });

      expect(ended.status).toBe("completed");
      const deletions = orders.requests.filter(
        (request) =>
          request.method === "DELETE" &&
          request.path === "/callbacks" &&
          (request.body as string[]).includes(id),
      );
      expect(deletions).toHaveLength(1);
      expect(orders.callbacks().map((callback) => callback.id)).not.toContain(id);
      // The first step's answer came from DBOS's record after the crash; only the last step asked the model.
      expect(requestsOf(second)).toBe(1);
      expect(deniedEnded.status).toBe("completed");
      expect(deniedEnded.finishedCalls?.map((call) => call.status)).toEqual(["refused"]);
      expect(orders.callbacks().map((callback) => callback.id)).toContain(deniedId);
      expect(
        orders.requests.filter(
          (request) =>
            request.method === "DELETE" &&
            request.path === "/callbacks" &&
            (request.body as string[]).includes(deniedId),
        ),
      ).toEqual([]);
      const calls = ended.finishedCalls ?? [];
      expect(calls).toHaveLength(1);
      if (dieAt === "asking") expect(calls[0]?.status).toBe("succeeded");
      else expect(calls[0]?.status).not.toBe("succeeded");
    } finally {
      await store.close();
    }
  },
);

it("three processes launched together on a fresh database all launch: DBOS's migrations run one at a time", async () => {
  const { environment } = processEnvironment();
  const launched = await Promise.allSettled(
    ["one", "two", "three"].map((executor) =>
      startProcess({ ...environment, DBOS_TEST_EXECUTOR: executor }),
    ),
  );
  const failures = launched.flatMap((outcome) =>
    outcome.status === "rejected" ? [String(outcome.reason)] : [],
  );
  for (const outcome of launched) {
    if (outcome.status === "fulfilled") {
      outcome.value.child.kill("SIGTERM");
      await outcome.value.exited;
    }
  }
  expect(failures).toEqual([]);
}, 120_000);

it("a process stopped (SIGSTOP) after its start write while another takes its workflow over: the approved deletion is sent once, and the stalled process sends nothing when continued", async () => {
  const { environment, runSchema } = processEnvironment();
  const store = new PostgresRunStore({ connectionString: testDatabaseUrl(), schema: runSchema });
  try {
    const id = await newCallback("stop");
    const runId = newRunId();
    const first = await startProcess({
      ...environment,
      DBOS_TEST_EXECUTOR: "first",
      DBOS_TEST_RUNS: JSON.stringify([{ runId, task: `Delete callback ${id}` }]),
      DBOS_TEST_DIE_AT: "stop-before-call",
      DBOS_TEST_DIE_FOR: id,
      // Longer than the stop: the stalled request is not ended by its own timeout.
      DBOS_TEST_TOOL_TIMEOUT_MS: "20000",
    });
    const waiting = await storedRun(
      store,
      runId,
      (state) => state.status === "suspended" && !!state.pendingCalls[0]?.interactionId,
      "to wait for its answer",
    );
    messaging.answerInteraction(waiting.pendingCalls[0]?.interactionId ?? "", "approve");
    for (let tries = 0; tries < 3_000 && first.dying === undefined; tries++) await sleep(10);
    expect(first.dying).toBe("stop-before-call");
    const deletions = () =>
      orders.requests.filter(
        (request) => request.method === "DELETE" && JSON.stringify(request.body).includes(id),
      ).length;
    // Another executor takes the stalled process's workflow over while it is stopped.
    const second = await startProcess({
      ...environment,
      DBOS_TEST_EXECUTOR: "second",
      DBOS_TEST_RECOVER_EXECUTOR: "first",
      DBOS_TEST_TOOL_TIMEOUT_MS: "20000",
    });
    expect(second.recovered).toContain(runId);
    await storedRun(store, runId, (state) => state.status === "completed", "to complete");
    // Continued after the other completed the run: it must not act any more.
    first.child.kill("SIGCONT");
    await sleep(2_000);
    expect(deletions()).toBe(1);
    for (const one of [first, second]) one.child.kill("SIGTERM");
    await Promise.all([first.exited, second.exited]);
  } finally {
    await store.close();
  }
}, 120_000);

it("a process killed in its scheduled check of pending approvals: another executor's recoverExecutor hands the check over, and it ends instead of staying pending", async () => {
  const { environment, dbosSchema } = processEnvironment();
  const checks = async () => {
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ status: string }>(
        `SELECT status FROM "${dbosSchema}".workflow_status WHERE name = 'switchyard.check-approvals' ORDER BY created_at`,
      );
      return rows.map((row) => row.status);
    } finally {
      await admin.end();
    }
  };
  const first = await startProcess({
    ...environment,
    DBOS_TEST_EXECUTOR: "first",
    DBOS_TEST_CHECK_SCHEDULE: "* * * * * *",
    DBOS_TEST_DIE_AT: "checking",
  });
  expect((await first.exited).signal).toBe("SIGKILL");
  expect(first.dying).toBe("checking");
  expect(await checks()).toContain("PENDING");

  // No run was in flight: no run is handed over, but the check is.
  const second = await startProcess({
    ...environment,
    DBOS_TEST_EXECUTOR: "second",
    DBOS_TEST_RECOVER_EXECUTOR: "first",
  });
  expect(second.recovered).toEqual([]);
  let statuses = await checks();
  for (let tries = 0; tries < 300 && statuses.some((status) => status !== "SUCCESS"); tries++) {
    await sleep(50);
    statuses = await checks();
  }
  expect(statuses.length).toBeGreaterThan(0);
  expect(statuses.filter((status) => status !== "SUCCESS")).toEqual([]);
  second.child.kill("SIGTERM");
  expect(await second.exited).toEqual({ code: 0, signal: null });
}, 120_000);

it("a process killed while its model was asked, its run taken over by another executor: DBOS's expected 'already exists in queue' for the model call is logged at debug, without its stack trace", async () => {
  const { environment, runSchema } = processEnvironment();
  const store = new PostgresRunStore({ connectionString: testDatabaseUrl(), schema: runSchema });
  try {
    const id = await newCallback("log");
    const runId = newRunId();
    const first = await startProcess({
      ...environment,
      DBOS_TEST_EXECUTOR: "first",
      DBOS_TEST_RUNS: JSON.stringify([{ runId, task: `Delete callback ${id}` }]),
      DBOS_TEST_DIE_AT: "model",
      DBOS_TEST_DIE_FOR: id,
    });
    expect((await first.exited).signal).toBe("SIGKILL");
    expect(first.dying).toBe("model");

    const second = await startProcess({
      ...environment,
      DBOS_TEST_EXECUTOR: "second",
      DBOS_TEST_RECOVER_EXECUTOR: "first",
      DBOS_TEST_LOG_LEVEL: "debug",
    });
    expect(second.recovered).toEqual([runId]);
    // The run goes on: its model call is asked again, and the run waits for its answer.
    await storedRun(
      store,
      runId,
      (state) => state.status === "suspended" && !!state.pendingCalls[0]?.interactionId,
      "to wait for its answer",
    );
    second.child.kill("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });
    const entries = second.stderrLines.flatMap((line): Record<string, unknown>[] => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
    const queued = entries.filter((entry) => String(entry.msg).includes("already exists in queue"));
    expect(queued.length).toBeGreaterThan(0);
    for (const entry of queued) {
      expect(entry.level).toBe(20); // pino's debug
      expect(entry.stack).toBeUndefined();
      expect(String(entry.msg)).not.toMatch(/\n\s+at /);
      expect(String(entry.msg)).toMatch(/The queue is not updated\.$/);
    }
    // Nothing of it at warn or above, and no stack trace anywhere on stderr.
    const plain = second.stderrLines.filter((line) => line.includes("already exists in queue"));
    expect(plain).toHaveLength(queued.length);
  } finally {
    await store.close();
  }
}, 120_000);
