import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { type AddressInfo, connect, createServer, type Server } from "node:net";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FleetServices, fleetAgentOptions, fleetServicesOf } from "../../bench/fleet-agent.js";
import { Agent } from "../../src/agent/agent.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";
import { registerWebhookTool } from "./register-webhook-tool.js";

/**
 * Exactly once against a stalled owner, with real processes and real
 * PostgreSQL: a run changes owner while its first owner is still alive
 * (its lease lapsed under a slow request, it was stopped right after its
 * start write, or two processes take it over at once), and the service
 * still sees one request for the approved call: for the fleet's
 * `delete_callbacks` and for `register_webhook`, a tool of a user's own
 * that is not idempotent (see exactly-once-process.ts).
 */

const leaseMs = 1_000;
/** The tools' timeout: how long a request may be on the wire, which a new owner waits out. */
const toolTimeoutMs = 3_000;
/** A slow service answers after this (less than the tools' timeout). */
const slowMs = 2_000;

let messaging: MessagingSimulator;
let orders: OrdersSimulator;
let admin: pg.Pool;
const children: ChildProcess[] = [];
const proxies: Server[] = [];
const stores: PostgresRunStore[] = [];
const tsxLoader = createRequire(import.meta.url).resolve("tsx");

beforeAll(async () => {
  [messaging, orders] = await Promise.all([
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
  admin = new pg.Pool({ connectionString: testDatabaseUrl(), max: 2 });
});

afterEach(async () => {
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await exited;
    }),
  );
  for (const proxy of proxies.splice(0)) proxy.close();
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

afterAll(async () => {
  await admin?.end();
  await Promise.all([messaging?.close(), orders?.close()]);
});

/** The two calls tried: a destructive call of the tool sets, and a user's own non-idempotent tool. */
const cases = [
  {
    tool: "delete_callbacks",
    method: "DELETE",
    /** A run that asks for the call, and what to find in a request of it. */
    prepare: async (): Promise<{ arguments: Record<string, unknown>; marker: string }> => {
      const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
      const [created] = await client.createCallbacks([
        { url: `https://hooks.example.com/once/${randomUUID()}`, message_type: "orderEvent" },
      ]);
      const id = created?.id ?? "";
      return { arguments: { ids: [id] }, marker: id };
    },
  },
  {
    tool: "register_webhook",
    method: "POST",
    prepare: async () => {
      const url = `https://hooks.example.com/once/${randomUUID()}`;
      return { arguments: { url }, marker: url };
    },
  },
] as const;

type Case = (typeof cases)[number];

/** What one test's run is: its schema, run id, and how to count the call's requests at the service. */
interface Scenario {
  schema: string;
  runId: string;
  services: FleetServices;
  requests: () => number;
  status: () => Promise<string | undefined>;
  /** The run's claim expired by the database's clock, unrenewed. */
  leaseLapsed: () => Promise<boolean>;
}

/** A suspended run in a new schema, asking for `tried`'s call, approved. */
async function approvedRun(tried: Case): Promise<Scenario> {
  const schema = uniqueSchema("once");
  const store = new PostgresRunStore({ connectionString: testDatabaseUrl(), schema, leaseMs });
  stores.push(store);
  const services = fleetServicesOf(orders, messaging);
  const { arguments: args, marker } = await tried.prepare();
  const fleet = fleetAgentOptions(services, {
    steps: [{ toolCalls: [{ name: tried.tool, arguments: args }] }],
  });
  const starter = new Agent({
    ...fleet,
    tools: [...(fleet.tools ?? []), registerWebhookTool(services, toolTimeoutMs)],
    runStore: store,
  });
  const result = await starter.run("Do it.", { suspendOnApproval: true });
  const call = result.state?.pendingCalls[0];
  if (!result.runId || !call?.interactionId) throw new Error("the run did not suspend");
  messaging.answerInteraction(call.interactionId, "approve");
  const runId = result.runId ?? "";
  const row = async <Row extends pg.QueryResultRow>(text: string) =>
    (await admin.query<Row>(text, [runId])).rows[0];
  return {
    schema,
    runId,
    services,
    requests: () =>
      orders.requests.filter(
        (request) =>
          request.method === tried.method &&
          request.path === "/callbacks" &&
          JSON.stringify(request.body).includes(marker),
      ).length,
    status: async () =>
      (await row<{ status: string }>(`SELECT status FROM "${schema}".runs WHERE run_id = $1`))
        ?.status,
    leaseLapsed: async () =>
      (
        await row<{ lapsed: boolean }>(
          `SELECT lease_expires_at < now() AS lapsed FROM "${schema}".runs WHERE run_id = $1`,
        )
      )?.lapsed === true,
  };
}

/** A process of exactly-once-process.ts, and the lines it printed. */
interface Process {
  child: ChildProcess;
  /** A resuming process: resume now, and resolve with what it printed of it. */
  go: () => Promise<Record<string, unknown>>;
  lines: Array<Record<string, unknown>>;
  exited: Promise<void>;
  said: (test: (line: Record<string, unknown>) => boolean) => Promise<void>;
}

function start(
  scenario: Scenario,
  options: {
    owner: string;
    databaseUrl?: string;
    runId?: string;
    afterStart?: "stop" | "kill";
    afterQuestion?: "kill";
    steps?: unknown[];
  },
): Process {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./exactly-once-process.ts", import.meta.url).pathname],
    {
      stdio: ["pipe", "pipe", "inherit"],
      env: {
        ...process.env,
        ONCE_DATABASE_URL: options.databaseUrl ?? testDatabaseUrl(),
        ONCE_SCHEMA: scenario.schema,
        ONCE_SERVICES: JSON.stringify(scenario.services),
        ONCE_OWNER: options.owner,
        ONCE_LEASE_MS: String(leaseMs),
        ONCE_TOOL_TIMEOUT_MS: String(toolTimeoutMs),
        ...(options.runId ? { ONCE_RUN_ID: options.runId } : {}),
        ...(options.afterStart ? { ONCE_AFTER_START: options.afterStart } : {}),
        ...(options.afterQuestion ? { ONCE_AFTER_QUESTION: options.afterQuestion } : {}),
        ...(options.steps ? { ONCE_STEPS: JSON.stringify(options.steps) } : {}),
      },
    },
  );
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  createInterface({ input: child.stdout! }).on("line", (text) => {
    lines.push(JSON.parse(text) as Record<string, unknown>);
    for (const wake of waiting.splice(0)) wake();
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const said = async (test: (line: Record<string, unknown>) => boolean) => {
    const deadline = Date.now() + 30_000;
    while (!lines.some(test)) {
      if (Date.now() > deadline || child.exitCode !== null || child.signalCode === "SIGKILL") {
        throw new Error(`${options.owner} never said it: ${JSON.stringify(lines)}`);
      }
      await Promise.race([new Promise<void>((wake) => waiting.push(wake)), sleep(100)]);
    }
  };
  const go = async () => {
    const before = lines.length;
    child.stdin?.write("go\n");
    await said(() => lines.length > before);
    return lines[before] ?? {};
  };
  return { child, go, lines, exited, said };
}

/** Resumes the run with `resuming` (a process with ONCE_RUN_ID) until it completes, waiting as told. */
async function resumeUntilCompleted(scenario: Scenario, resuming: Process): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt++) {
    if ((await scenario.status()) === "completed") return;
    await resuming.go();
    await sleep(250);
  }
  throw new Error(`the run never completed: ${JSON.stringify(resuming.lines)}`);
}

/** Waits until `condition` holds (30 s at most). */
async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
}

/** A TCP proxy to the database that the test can cut off (a network partition), and its URL. */
async function partitionableDatabase(): Promise<{ url: string; partition: () => void }> {
  const upstream = new URL(testDatabaseUrl());
  let cut = false;
  const proxy = createServer((client) => {
    if (cut) return client.destroy();
    const database = connect(Number(upstream.port), upstream.hostname);
    client.on("data", (chunk) => {
      if (!cut) database.write(chunk);
    });
    database.on("data", (chunk) => {
      if (!cut) client.write(chunk);
    });
    client.on("error", () => database.destroy());
    database.on("error", () => client.destroy());
  });
  proxies.push(proxy);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = new URL(testDatabaseUrl());
  url.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  // Nothing passes any more, and nothing is closed: the process waits on the wire.
  const partition = () => {
    cut = true;
  };
  return { url: url.toString(), partition };
}

describe.each(cases)("exactly one request for an approved $tool", (tried) => {
  const runFor = () => approvedRun(tried);

  it("when the owner's lease lapses under a slow request and another process takes the run", async () => {
    const scenario = await runFor();
    const database = await partitionableDatabase();
    orders.failNext({ method: tried.method, path: "/callbacks", delayMs: slowMs });
    const second = start(scenario, { owner: "second", runId: scenario.runId });
    await second.said((line) => line.ready === true);
    const first = start(scenario, { owner: "first", databaseUrl: database.url });
    await first.said((line) => line.ready === true);
    // The request reached the slow service: cut the owner off from the database.
    await until(() => scenario.requests() === 1, "the first owner sent its request");
    database.partition();
    await until(async () => await scenario.leaseLapsed(), "the first owner's lease lapsed");
    // The run is taken the moment the lease lapsed, and resumed until it completes.
    await resumeUntilCompleted(scenario, second);
    // The slow request took effect meanwhile; nothing else is on its way.
    await sleep(slowMs);
    expect(scenario.requests()).toBe(1);
  }, 60_000);

  it("when the owner is stopped (SIGSTOP) right after its start write and continued after the takeover", async () => {
    const scenario = await runFor();
    const first = start(scenario, { owner: "first", afterStart: "stop" });
    await first.said((line) => line.afterStart === "stop");
    const second = start(scenario, { owner: "second" });
    // The second holds the run only for moments (it takes it, finds the call
    // may still be in flight, lets it go until the tool's timeout passed,
    // then takes it again and ends it): its own word says it ended the run.
    await second.said((line) => line.runId === scenario.runId && line.status === "completed");
    expect(await scenario.status()).toBe("completed");
    // Continued once another owner finished the run: it must not act any more.
    first.child.kill("SIGCONT");
    await first.said((line) => line.runId === scenario.runId);
    await sleep(1_000);
    expect(scenario.requests()).toBe(1);
  }, 60_000);

  it("when two processes take the run over at once after its owner died after the start write", async () => {
    const scenario = await runFor();
    const first = start(scenario, { owner: "first", afterStart: "kill" });
    await first.said((line) => line.afterStart === "kill");
    await first.exited;
    // Long past the dead owner's lease and the tool's timeout: reconciling is safe now.
    await sleep(leaseMs + toolTimeoutMs);
    // A slow service: both reconcile requests would be in flight together.
    orders.failNext({ method: tried.method, path: "/callbacks", delayMs: slowMs, times: 2 });
    const both = [
      start(scenario, { owner: "one", runId: scenario.runId }),
      start(scenario, { owner: "two", runId: scenario.runId }),
    ];
    await Promise.all(both.map((one) => one.said((line) => line.ready === true)));
    await Promise.all(both.map((one) => one.go()));
    // The one taken over mid-reconcile left the run; it goes on once nobody else can act.
    await resumeUntilCompleted(scenario, both[0] as Process);
    await sleep(slowMs);
    expect(scenario.requests()).toBe(1);
  }, 60_000);
});

it("a question is asked once across a crash between sending it and saving the run: the recovered run's question is the same message", async () => {
  const scenario = await approvedRun(cases[0]);
  const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
  const [next] = await client.createCallbacks([
    { url: `https://hooks.example.com/once/${randomUUID()}`, message_type: "orderEvent" },
  ]);
  const nextId = next?.id ?? "";
  // After the approved call, the model asks for a second deletion: a new question.
  const steps = [
    { toolCalls: [{ name: "delete_callbacks", arguments: { ids: [nextId] } }] },
    { text: "Done." },
  ];
  const questions = () =>
    messaging.requests.filter(
      (request) =>
        request.method === "POST" &&
        request.path === "/v1/messages" &&
        JSON.stringify(request.body).includes(nextId),
    );
  const first = start(scenario, { owner: "first", afterQuestion: "kill", steps });
  await first.said((line) => line.afterQuestion === "kill");
  await first.exited;
  expect(questions()).toHaveLength(1);
  // Taken over from the dead process, the run asks the model again: the same call, the same question.
  const second = start(scenario, { owner: "second", runId: scenario.runId, steps });
  await second.said((line) => line.ready === true);
  expect(await second.go()).toMatchObject({ status: "suspended" });
  const sent = questions();
  expect(sent).toHaveLength(2);
  const keys = sent.map((request) => request.headers["idempotency-key"]);
  expect(keys[0]).toBeDefined();
  expect(keys[1]).toBe(keys[0]);
  // One message at the service: the recovered run waits on the question already asked.
  expect(messaging.messages().filter((one) => JSON.stringify(one).includes(nextId))).toHaveLength(
    1,
  );
}, 60_000);
