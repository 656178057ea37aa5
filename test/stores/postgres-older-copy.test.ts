import pg from "pg";
import { expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { RunRolledBackError, RunStateError } from "../../src/agent/durable/durable-errors.js";
import { RunWorker, type RunWorkerOutcome } from "../../src/agent/durable/run-worker.js";
import type { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { callbackTools, listAndDelete } from "../agent/durable/durable-helpers.js";
import { testDatabaseUrl, usePostgresStores } from "../helpers/postgres-test-database.js";
import { workUntil } from "../helpers/work-until.js";

const makeStore = usePostgresStores("older_copy");
const stateKey = "5f0c2e9d8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d";

/** An agent as a new process builds it, whose approver approves what it checks. */
function approving(store: PostgresRunStore) {
  const { tools, deletions } = callbackTools();
  const approver = new ScriptedApprover([], { checks: ["approve", "approve"] });
  const agent = new Agent({
    model: new ScriptedModel([{ text: "deleted" }]),
    tools,
    approver,
    runStore: store,
    stateKey,
  });
  return { agent, deletions, approver };
}

/**
 * A run whose approval was used (its deletion ran, by `first`), then its
 * older suspended row put back, seal and all, as someone with write access
 * to the database would: the run's id and the agent that ran it.
 */
async function putBackOlderCopy(store: PostgresRunStore) {
  const suspended = await new Agent({
    model: new ScriptedModel([listAndDelete]),
    tools: callbackTools().tools,
    approver: new ScriptedApprover(["pending"]),
    runStore: store,
    stateKey,
  }).run("delete cb-1 and cb-2", { suspendOnApproval: true });
  const runId = suspended.runId ?? "";
  expect(suspended.status).toBe("suspended");
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  try {
    const table = `"${store.schema}".runs`;
    const [older] = (
      await admin.query<{ state: unknown; revision: string }>(
        `SELECT state, revision FROM ${table} WHERE run_id = $1`,
        [runId],
      )
    ).rows;
    const first = approving(store);
    expect((await first.agent.resume(runId)).status).toBe("completed");
    expect(first.deletions).toEqual([["cb-1", "cb-2"]]);
    await admin.query(
      `UPDATE ${table} SET state = $2::jsonb, status = 'suspended', revision = $3 WHERE run_id = $1`,
      [runId, JSON.stringify(older?.state), older?.revision],
    );
    return { runId, first };
  } finally {
    await admin.end();
  }
}

it("PostgreSQL: an older sealed copy of a run put back after its approval was used is refused before anything runs", async () => {
  const store = makeStore();
  const { runId } = await putBackOlderCopy(store);
  const second = approving(store);
  const resumed = second.agent.resume(runId);
  await expect(resumed).rejects.toThrow(RunStateError);
  await expect(resumed).rejects.toThrow(/older copy of run/);
  // Refused before the answer was even read: nothing asked, nothing run.
  expect(second.approver.checkRequests).toEqual([]);
  expect(second.deletions).toEqual([]);
});

it("PostgreSQL: a worker ends an older sealed copy put back failed at its first attempt, naming the rollback, and never takes it again", async () => {
  const store = makeStore();
  const { runId, first } = await putBackOlderCopy(store);
  await store.wake(runId);
  const second = approving(store);
  const settled: RunWorkerOutcome[] = [];
  await workUntil(
    new RunWorker({
      runStore: store,
      agent: second.agent,
      pollIntervalMs: 10,
      firstRecheckAfterMs: 5,
      recheckAfterMs: 20,
      onRunSettled: (outcome) => settled.push(outcome),
    }),
    () => settled.length > 0,
    "the worker to settle the run",
  );
  // Ended at the first attempt (not retried up to maxAttempts over hours).
  expect(settled).toHaveLength(1);
  expect(settled[0]?.gaveUp).toBe(true);
  expect(settled[0]?.attempts).toBe(1);
  expect(settled[0]?.error).toBeInstanceOf(RunRolledBackError);
  const after = await store.load(runId);
  expect(after.status).toBe("failed");
  expect(after.error?.name).toBe("RunRolledBack");
  expect(after.error?.message).toMatch(/older copy of run .* put back/);
  expect(await store.claimNext()).toBeUndefined();
  // Nothing asked, nothing run again; the approval stays spent.
  expect(second.approver.checkRequests).toEqual([]);
  expect(second.deletions).toEqual([]);
  expect(first.deletions).toEqual([["cb-1", "cb-2"]]);
});
