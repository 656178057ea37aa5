import { expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { RunNotFoundError } from "../../src/agent/durable/durable-errors.js";
import { RunWorker } from "../../src/agent/durable/run-worker.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";
import { endedRunState, suspendedRunState } from "../helpers/run-state-fixtures.js";

const makeStore = usePostgresStores("retention");

it("a worker's retention deletes the runs that ended, in pages, and leaves running and suspended runs alone", async () => {
  const store = makeStore();
  const ended = ["completed", "max_steps", "aborted", "failed"] as const;
  const finishedIds: string[] = [];
  // More than one page of 100.
  for (let index = 0; index < 130; index++) {
    const runId = `run-ended-${index}`;
    finishedIds.push(runId);
    await store.save(endedRunState(runId, { status: ended[index % ended.length]! }));
  }
  await store.save(suspendedRunState("run-waiting"));
  await store.save(endedRunState("run-loose", { status: "running" }));
  const held = await store.claim("run-held");
  await store.save(endedRunState("run-held", { status: "running", revision: 1 }), {
    expectedRevision: 0,
    claim: held,
  });
  const reported: string[] = [];
  const worker = new RunWorker({
    runStore: store,
    agent: new Agent({ model: new ScriptedModel([]), runStore: store }),
    pruneFinishedAfterMs: 0,
    onRunsPruned: (runIds) => {
      reported.push(...runIds);
    },
  });

  expect(await worker.pruneFinished()).toBe(130);

  expect([...reported].sort()).toEqual([...finishedIds].sort());
  for (const runId of finishedIds.slice(0, 5)) {
    await expect(store.load(runId)).rejects.toBeInstanceOf(RunNotFoundError);
  }
  const left = await store.list({ limit: 1000 });
  expect(left.runs.map((run) => [run.runId, run.status]).sort()).toEqual([
    ["run-held", "running"],
    ["run-loose", "running"],
    ["run-waiting", "suspended"],
  ]);
  await held.release();
});
