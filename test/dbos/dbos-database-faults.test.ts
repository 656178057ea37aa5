import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { newRunId } from "../../src/agent/durable/run-id.js";
import { startTestPostgres, type TestPostgres } from "../helpers/start-test-postgres.js";
import { useDbosTestBed } from "./dbos-test-setup.js";

// A server of this file's own: the tests cut its sessions and restart it.
let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres({ durable: false });
}, 120_000);
// Registered before the test bed's: after-all hooks run last registered first, so the server stops last.
afterAll(async () => {
  await server?.stop();
});
const bed = useDbosTestBed({ databaseUrl: () => server.url });

/** Starts a run deleting a new callback; resolves once it waits for its answer. */
async function waitingRun() {
  const id = await bed.newCallback();
  const run = await bed.durable.start(`Delete callback ${id}.`);
  return { id, run, question: await bed.questionOf(run.runId) };
}

/** Runs `body`, trying again while the server is not back (or its sessions are being cut). */
async function retried<T>(body: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await body();
    } catch (error) {
      if (tries >= 50) throw error;
      await sleep(100);
    }
  }
}

/** Wakes the run, trying again while the server is not back. */
function wake(runId: string): Promise<void> {
  return retried(() => bed.durable.wake(runId));
}

/** Asserts the run completed and deleted its callback with exactly one request. */
async function expectDeletedOnce(runId: string, id: string): Promise<void> {
  expect(await bed.durable.retrieve(runId).result()).toEqual({
    runId,
    status: "completed",
    output: "Done.",
  });
  const deletions = bed.orders.requests.filter(
    (request) =>
      request.method === "DELETE" &&
      request.path === "/callbacks" &&
      (request.body as string[]).includes(id),
  );
  expect(deletions).toHaveLength(1);
}

it("every session cut (pg_terminate_backend) while a run waits: the answer still runs the call once", async () => {
  const { id, run, question } = await waitingRun();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ cut: boolean }>(
      "SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()",
    );
    expect(rows.length).toBeGreaterThan(0);
  } finally {
    await admin.end();
  }
  bed.messaging.answerInteraction(question, "approve");
  await wake(run.runId);
  await expectDeletedOnce(run.runId, id);
});

it("the server restarted while a run waits: the answer still runs the call once", async () => {
  const { id, run, question } = await waitingRun();
  await server.stopServer();
  await server.startServer();
  bed.messaging.answerInteraction(question, "approve");
  await wake(run.runId);
  await expectDeletedOnce(run.runId, id);
});

it("sessions cut over and over between statements (each connection held without a statement running, as one DBOS just checked out) while runs start: the process lives on, and each run runs its call once", async () => {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  // For three seconds, every session without a statement running: pg then
  // emits the 'error' event on its client, where nobody listens unless the
  // pool's clients are guarded, and an unheard 'error' event ends the
  // process (and this test run with it).
  let cut = 0;
  const stormUntil = Date.now() + 3_000;
  const storm = (async () => {
    while (Date.now() < stormUntil) {
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND state IN ('idle', 'idle in transaction') AND pg_terminate_backend(pid)",
      );
      cut += rows.length;
      await sleep(2);
    }
  })();
  const runs: { id: string; runId: string }[] = [];
  try {
    while (Date.now() < stormUntil && runs.length < 3) {
      const id = await bed.newCallback();
      const runId = newRunId();
      // Starting is idempotent by run id: a start cut short is tried again.
      await retried(() => bed.durable.start(`Delete callback ${id}.`, { runId }));
      runs.push({ id, runId });
    }
  } finally {
    await storm;
    await admin.end();
  }
  expect(cut).toBeGreaterThan(0);
  expect(runs.length).toBeGreaterThan(0);
  for (const run of runs) {
    bed.messaging.answerInteraction(await bed.questionOf(run.runId), "approve");
    await wake(run.runId);
  }
  for (const run of runs) await expectDeletedOnce(run.runId, run.id);
}, 120_000);
