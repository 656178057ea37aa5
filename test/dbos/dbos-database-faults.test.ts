import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
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

/** Wakes the run, trying again while the server is not back. */
async function wake(runId: string): Promise<void> {
  for (let tries = 1; ; tries += 1) {
    try {
      return await bed.durable.wake(runId);
    } catch (error) {
      if (tries >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
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
