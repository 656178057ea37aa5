import { randomUUID } from "node:crypto";
import { type AddressInfo, connect, createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFleetAgent, fleetServicesOf } from "../../bench/fleet-agent.js";
import { Agent } from "../../src/agent/agent.js";
import {
  RunConflictError,
  RunNotResumableError,
  RunStoreError,
} from "../../src/agent/durable/durable-errors.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import { RunWorker, type RunWorkerOutcome } from "../../src/agent/durable/run-worker.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { callbackTools, toolMessagesById } from "../agent/durable/durable-helpers.js";
import { uniqueSchema } from "../helpers/postgres-test-database.js";
import { endedRunState } from "../helpers/run-state-fixtures.js";
import { startTestPostgres, type TestPostgres } from "../helpers/start-test-postgres.js";

// A server of this file's own: these tests stop and start it, and cut its
// sessions, which must not reach the other tests' server.
let server: TestPostgres;
let admin: pg.Client;
const stores: PostgresRunStore[] = [];

beforeAll(async () => {
  server = await startTestPostgres({ durable: false });
  admin = await connectAdmin();
}, 120_000);

afterAll(async () => {
  await Promise.all(stores.map((store) => store.close().catch(() => {})));
  await admin?.end().catch(() => {});
  await server?.stop();
});

async function connectAdmin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: server.url });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** A store on this file's server whose sessions are named `application`, in a schema of its own. */
function makeStore(application: string, retry?: { maxRetries: number }): PostgresRunStore {
  const store = new PostgresRunStore({
    connectionString: `${server.url}?application_name=${application}`,
    schema: uniqueSchema("outage"),
    poolSize: 4,
    leaseMs: 2_000,
    ...(retry ? { retry } : {}),
  });
  stores.push(store);
  return store;
}

/** Waits until a session of `application` waits on a lock, then ends it as an administrator. */
async function terminateWaitingSession(application: string): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE application_name = $1 AND wait_event_type = 'Lock'`,
      [application],
    );
    if (rows.length > 0) {
      for (const { pid } of rows) await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      return;
    }
    await sleep(10);
  }
}

function savedState(runId: string, revision = 1): RunState {
  return endedRunState(runId, { revision, stepCount: revision });
}

describe("PostgresRunStore under database faults", () => {
  it("sends a save again when pg_terminate_backend ends its session mid-statement", async () => {
    const store = makeStore("cut-save");
    await store.save(savedState("run-a"), { expectedRevision: 0 });
    // Hold the row, so the store's save waits on it; end the waiting session.
    await admin.query("BEGIN");
    await admin.query(`SELECT 1 FROM "${store.schema}".runs WHERE run_id = 'run-a' FOR UPDATE`);
    const saving = store.save(savedState("run-a", 2), { expectedRevision: 1 });
    await terminateWaitingSession("cut-save");
    await admin.query("COMMIT");
    await saving;
    expect((await store.load("run-a")).revision).toBe(2);
  });

  it("sends a save again after its answer was lost, and finds its own write instead of a conflict", async () => {
    // A proxy that, once armed, cuts the connection when the server answers
    // the armed run's next statement: the statement committed, the answer is lost.
    const upstream = new URL(server.url);
    let armedFor: string | undefined;
    let cuts = 0;
    const proxy = createServer((client) => {
      const database = connect(Number(upstream.port), upstream.hostname);
      let cutNext = false;
      client.on("data", (chunk) => {
        if (armedFor !== undefined && chunk.includes(armedFor)) {
          cutNext = true;
          armedFor = undefined;
        }
        database.write(chunk);
      });
      database.on("data", (chunk) => {
        if (cutNext) {
          cuts++;
          client.destroy();
          database.destroy();
          return;
        }
        client.write(chunk);
      });
      client.on("error", () => database.destroy());
      database.on("error", () => client.destroy());
      client.on("close", () => database.destroy());
      database.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const { port } = proxy.address() as AddressInfo;
    const viaProxy = new URL(server.url);
    viaProxy.host = `127.0.0.1:${port}`;
    const store = new PostgresRunStore({
      connectionString: viaProxy.toString(),
      schema: uniqueSchema("outage"),
      poolSize: 2,
    });
    stores.push(store);
    try {
      await store.save(savedState("run-lost-answer"), { expectedRevision: 0 });
      armedFor = "run-lost-answer";
      await store.save(savedState("run-lost-answer", 2), { expectedRevision: 1 });
      expect(cuts).toBe(1);
      expect((await store.load("run-lost-answer")).revision).toBe(2);
    } finally {
      await store.close();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it("survives its migration session being ended (an error event with nobody listening crashed the process)", async () => {
    const store = makeStore("cut-migrate");
    const lockName = `switchyard.migrate:${store.schema}`;
    await admin.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [lockName]);
    const migrating = store.migrate();
    try {
      await terminateWaitingSession("cut-migrate");
    } finally {
      await admin.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockName]);
    }
    await migrating;
    await store.save(savedState("run-a"), { expectedRevision: 0 });
    expect((await store.load("run-a")).status).toBe("completed");
  });

  it("ends with a RunStoreError that says the database is unreachable once the outage outlasts the retries", async () => {
    const store = makeStore("refused", { maxRetries: 2 });
    await store.migrate();
    await server.stopServer();
    try {
      const error = await store.load("run-a").catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(RunStoreError);
      expect((error as RunStoreError).operation).toBe("load");
      expect((error as Error).message).toMatch(
        /Run store load of run "run-a" failed .*stayed unreachable through 3 attempts/,
      );
    } finally {
      await server.startServer();
      await admin.end().catch(() => {});
      admin = await connectAdmin();
    }
    // And the store goes on once the server is back.
    await store.save(savedState("run-a"), { expectedRevision: 0 });
  });

  it("ends a run failed, its approval unspent and its call not run, when the outage outlasts the retries", async () => {
    const store = makeStore("outage-run", { maxRetries: 2 });
    const { tools, deletions } = callbackTools();
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
        { text: "done" },
      ]),
      tools,
      // The database goes down while the person approves.
      approver: new ScriptedApprover([
        async (action) => {
          await server.stopServer();
          return { outcome: "approved", fingerprint: action.fingerprint, interactionId: "i-9" };
        },
      ]),
      runStore: store,
    });
    let result: Awaited<ReturnType<typeof agent.run>>;
    try {
      result = await agent.run("delete cb-1", { runId: "outage-run" });
    } finally {
      await server.startServer();
      await admin.end().catch(() => {});
      admin = await connectAdmin();
    }
    expect(deletions).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.error).toBeInstanceOf(RunStoreError);
    expect(result.error?.message).toMatch(/stayed unreachable through 3 attempts/);
    const { rows } = await admin.query(`SELECT 1 FROM "${store.schema}".used_approvals`);
    expect(rows).toEqual([]);
  });

  it("leaves a suspended run's approval to its next owner when the database goes down just before the start write: the call runs once, when the database is back", async () => {
    const store = makeStore("spend-outage", { maxRetries: 2 });
    const deleteCall = {
      toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_delete" }],
    };
    const suspended = await new Agent({
      model: new ScriptedModel([deleteCall]),
      tools: callbackTools().tools,
      approver: new ScriptedApprover(["pending"]),
      runStore: store,
    }).run("delete cb-1", { suspendOnApproval: true });
    const runId = suspended.runId ?? "";
    const approvalId = suspended.state?.pendingCalls[0]?.approvalId ?? "";
    expect(suspended.status).toBe("suspended");

    // The person approved; the database goes down just before the write
    // that would spend the approval and start the call, and stays down.
    const first = callbackTools();
    let failed: Awaited<ReturnType<Agent["resume"]>>;
    try {
      failed = await new Agent({
        model: new ScriptedModel([{ text: "deleted" }]),
        tools: first.tools,
        approver: new ScriptedApprover([], {
          checks: [
            async ({ pending }) => {
              await server.stopServer();
              return { outcome: "approved", fingerprint: pending.action.fingerprint };
            },
          ],
        }),
        runStore: store,
      }).resume(runId);
    } finally {
      await server.startServer();
      await admin.end().catch(() => {});
      admin = await connectAdmin();
    }
    expect(first.deletions).toEqual([]);
    expect(failed.status).toBe("failed");
    // The start write failed first (its tool message says the call did not
    // run); the run's last save, refused by the same outage, names it.
    expect(failed.error?.message).toMatch(
      /failed \(PostgreSQL.*stayed unreachable through 3 attempts/,
    );
    expect(JSON.stringify(failed.steps[0]?.toolCalls[0]?.content)).toContain(
      "it was not run, because the run could not record that it started",
    );
    expect(await store.isApprovalUsed(approvalId)).toBe(false);

    // The next owner of the run uses the approval: the call runs, once.
    const next = callbackTools();
    const resumed = await new Agent({
      model: new ScriptedModel([{ text: "deleted" }]),
      tools: next.tools,
      approver: new ScriptedApprover([], { checks: ["approve"] }),
      runStore: store,
    }).resume(runId, { takeOver: true });
    expect(resumed.status).toBe("completed");
    expect(next.deletions).toEqual([["cb-1"]]);
    expect(toolMessagesById(resumed.messages).call_delete).toEqual({ deleted: 1 });
    expect(await store.isApprovalUsed(approvalId)).toBe(true);
  }, 60_000);

  it("lets a holder whose lease ran out while the server was down renew and save under its token, and keeps a run another process took over meanwhile fenced from it", async () => {
    const leaseMs = 500;
    const holder = makeStore("lease-holder");
    // Another process, on the same tables.
    const other = new PostgresRunStore({ connectionString: server.url, schema: holder.schema });
    stores.push(other);
    for (const runId of ["run-kept", "run-taken"]) {
      await holder.save(savedState(runId), { expectedRevision: 0 });
    }
    const kept = await holder.claim("run-kept", { leaseMs, owner: "holder" });
    const lost = await holder.claim("run-taken", { leaseMs, owner: "holder" });
    await server.stopServer();
    // Tried while the server is down: the store sends it again until it is back.
    const renewal = kept.renew().then(
      () => "renewed",
      (error: unknown) => error,
    );
    try {
      await sleep(3 * leaseMs);
    } finally {
      await server.startServer();
      await admin.end().catch(() => {});
      admin = await connectAdmin();
    }
    expect(await renewal).toBe("renewed");
    await holder.save(savedState("run-kept", 2), { expectedRevision: 1, claim: kept });
    expect((await holder.load("run-kept")).revision).toBe(2);
    await expect(other.claim("run-kept", { owner: "other" })).rejects.toBeInstanceOf(
      RunNotResumableError,
    );

    // The other claim expired unrenewed: another process takes the run over.
    const taken = await other.claim("run-taken", { owner: "other" });
    expect(taken.recovered).toBe(true);
    await expect(lost.renew()).rejects.toMatchObject({ name: "RunConflictError", reason: "claim" });
    await expect(
      holder.save(savedState("run-taken", 2), { expectedRevision: 1, claim: lost }),
    ).rejects.toMatchObject({ name: "RunConflictError", reason: "claim" });
    await other.save(savedState("run-taken", 2), { expectedRevision: 1, claim: taken });
    for (const claim of [kept, lost, taken]) await claim.release();
  }, 60_000);

  it("leaves a running run due when its holder saved after its lease ran out and then died: another process recovers it", async () => {
    const leaseMs = 300;
    const holder = makeStore("late-save");
    const other = new PostgresRunStore({ connectionString: server.url, schema: holder.schema });
    stores.push(other);
    await holder.save(savedState("run-a"), { expectedRevision: 0 });
    const lapsed = await holder.claim("run-a", { leaseMs, owner: "holder" });
    await sleep(2 * leaseMs);
    // Nobody took the run: the holder's save under its token holds.
    await holder.save(endedRunState("run-a", { revision: 2, status: "running" }), {
      expectedRevision: 1,
      claim: lapsed,
    });
    // The holder dies here, its run marked running: another process takes it.
    const recovered = await other.claimNext({ owner: "other" });
    expect(recovered?.runId).toBe("run-a");
    expect(recovered?.recovered).toBe(true);
    await recovered?.release();
  });

  it("refuses to start a call under a claim whose lease ran out by the database's clock, though nobody took the run: the holder may be replaced any moment", async () => {
    const leaseMs = 300;
    const store = makeStore("lapsed-start");
    await store.save(savedState("run-a"), { expectedRevision: 0 });
    const lapsed = await store.claim("run-a", { leaseMs });
    await sleep(2 * leaseMs);
    const start = { toolCallId: "call-1", fingerprint: "", contentKey: "step-1:call-1" };
    const state = endedRunState("run-a", { revision: 2, status: "running" });
    const refused = await store
      .startCall(state, start, { expectedRevision: 1, claim: lapsed })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunConflictError);
    expect((refused as RunConflictError).reason).toBe("claim");
    expect((refused as Error).message).toMatch(/lapsed/);
    // Nothing was written: the call never started.
    expect((await store.load("run-a")).revision).toBe(1);
    await lapsed.release();
  });

  describe("a RunWorker across a server restart", () => {
    let messaging: MessagingSimulator;
    let orders: OrdersSimulator;
    beforeAll(async () => {
      [messaging, orders] = await Promise.all([
        startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
        startOrdersSimulator(),
      ]);
    });
    afterAll(async () => {
      await Promise.all([messaging?.close(), orders?.close()]);
    });

    it("keeps running while the server restarts, then finishes every answered run, each approved deletion once", async () => {
      const runCount = 12;
      const store = makeStore("restart");
      const services = fleetServicesOf(orders, messaging);
      const starter = buildFleetAgent(services, store, {
        steps: Array.from({ length: runCount }, () => ({
          toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }],
        })),
      });
      const idOf = new Map<string, string>();
      for (let index = 0; index < runCount; index++) {
        const result = await starter.run("Delete the callback.", { suspendOnApproval: true });
        const call = result.state?.pendingCalls[0];
        if (!result.runId || !call?.interactionId) throw new Error("the run did not suspend");
        idOf.set(result.runId, (call.arguments as { ids: string[] }).ids[0] ?? "");
        messaging.answerInteraction(call.interactionId, "approve");
      }

      const settled: RunWorkerOutcome[] = [];
      const worker = new RunWorker({
        runStore: store,
        // The call takes a moment after its request, so the server goes down while one is in flight.
        agent: buildFleetAgent(services, store, { afterCallMs: 300 }),
        concurrency: 2,
        leaseMs: 2_000,
        pollIntervalMs: 20,
        recheckAfterMs: 100,
        onRunSettled: (outcome) => settled.push(outcome),
      });
      const working = worker.start();
      // Restart the server while a deletion is in flight.
      while (!orders.requests.some((request) => request.method === "DELETE")) await sleep(5);
      await server.stopServer();
      await sleep(500);
      await server.startServer();
      await admin.end().catch(() => {});
      admin = await connectAdmin();

      const completed = async () =>
        Number(
          (
            await admin.query(
              `SELECT count(*) AS n FROM "${store.schema}".runs WHERE status = 'completed'`,
            )
          ).rows[0].n,
        );
      const deadline = Date.now() + 60_000;
      while ((await completed()) < runCount && Date.now() < deadline) await sleep(50);
      await worker.stop();
      await working;
      expect(await completed()).toBe(runCount);

      const deletions = new Map<string, number>();
      for (const request of orders.requests) {
        if (request.method !== "DELETE" || request.path !== "/callbacks") continue;
        for (const id of request.body as string[]) deletions.set(id, (deletions.get(id) ?? 0) + 1);
      }
      for (const [runId, id] of idOf) {
        const state = await store.load(runId);
        const told = state.messages.find((message) => message.role === "tool")?.content ?? "";
        // Nothing was killed: every approved call ran, once, and said so.
        expect(told, runId).not.toMatch(/already_used|outcome_unknown|approval_not_recorded/);
        expect(deletions.get(id), runId).toBe(1);
      }
    }, 120_000);

    it("stops acting on a run whose claim lapsed during an outage longer than its lease (its call in flight aborted, nothing saved), then takes it again and reconciles the call once the tool's timeout passed: one deletion", async () => {
      const leaseMs = 1_000;
      const store = makeStore("long-outage");
      const services = fleetServicesOf(orders, messaging);
      const callbackId = randomUUID();
      const suspended = await buildFleetAgent(services, store, {
        steps: [{ toolCalls: [{ name: "delete_callbacks", arguments: { ids: [callbackId] } }] }],
      }).run("Delete the callback.", { suspendOnApproval: true });
      const interactionId = suspended.state?.pendingCalls[0]?.interactionId;
      if (!suspended.runId || !interactionId) throw new Error("the run did not suspend");
      messaging.answerInteraction(interactionId, "approve");

      const taken: Array<{ runId: string; recovered: boolean }> = [];
      const settled: RunWorkerOutcome[] = [];
      const worker = new RunWorker({
        runStore: store,
        // The call goes on well after its request: through the whole outage.
        agent: buildFleetAgent(services, store, { afterCallMs: 6 * leaseMs, toolTimeoutMs: 2_000 }),
        concurrency: 2,
        leaseMs,
        pollIntervalMs: 20,
        onRunTaken: (run) => taken.push(run),
        onRunSettled: (outcome) => settled.push(outcome),
      });
      const working = worker.start();
      try {
        const deleted = () =>
          orders.requests.some(
            (request) =>
              request.method === "DELETE" && JSON.stringify(request.body).includes(callbackId),
          );
        while (!deleted()) await sleep(5);
        // Down three leases: the claim expires in the database, unrenewed.
        await server.stopServer();
        await sleep(3 * leaseMs);
        await server.startServer();
        await admin.end().catch(() => {});
        admin = await connectAdmin();
        const deadline = Date.now() + 60_000;
        while (!settled.some((outcome) => outcome.result?.status === "completed")) {
          if (Date.now() > deadline) break;
          await sleep(20);
        }
      } finally {
        await worker.stop();
        await working;
      }
      // Taken first fresh, then again as a run its holder stopped acting on.
      expect(taken[0]).toEqual({ runId: suspended.runId, recovered: false });
      expect(taken.at(-1)).toEqual({ runId: suspended.runId, recovered: true });
      // The lapse stopped the first attempt: its end was not saved.
      expect(settled[0]?.error).toBeInstanceOf(RunConflictError);
      expect(settled.at(-1)?.result?.status).toBe("completed");
      const state = await store.load(suspended.runId);
      expect(state.status).toBe("completed");
      const told = state.messages.find((message) => message.role === "tool")?.content ?? "";
      expect(told).toContain('"reconciled":true');
      expect(told).toContain("1 of 1 already gone");
      const deletions = orders.requests.filter(
        (request) =>
          request.method === "DELETE" && JSON.stringify(request.body).includes(callbackId),
      );
      expect(deletions).toHaveLength(1);
    }, 120_000);
  });
});
