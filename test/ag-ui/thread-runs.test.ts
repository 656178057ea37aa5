import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { latestThreadRun, threadRunId } from "../../src/ag-ui/thread-runs.js";
import { InMemoryRunStore } from "../../src/agent/durable/in-memory-run-store.js";
import {
  type RunListOptions,
  type RunStore,
  runStoreMethods,
} from "../../src/agent/durable/run-store.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { runState } from "../../src/testing/conformance-states.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";

const makePostgresStore = usePostgresStores("threads");
const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

async function fileStore(): Promise<FileRunStore> {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-thread-runs-"));
  directories.push(directory);
  return new FileRunStore({ directory });
}

/** A store written before `runIdPrefix`: it lists every run, whatever the option says. */
function withoutPrefixFilter(store: RunStore): RunStore {
  const methods = Object.fromEntries(
    runStoreMethods.map((method) => [method, store[method].bind(store)]),
  ) as unknown as RunStore;
  return {
    ...methods,
    list: ({ runIdPrefix: _ignored, ...options }: RunListOptions = {}) => store.list(options),
  };
}

const stores: Array<[string, () => Promise<RunStore>]> = [
  ["FileRunStore", fileStore],
  ["InMemoryRunStore", async () => new InMemoryRunStore()],
  ["PostgresRunStore", async () => makePostgresStore()],
  ["a store that ignores runIdPrefix", async () => withoutPrefixFilter(new InMemoryRunStore())],
];

describe.each(stores)("a thread's latest run, on %s", (_name, makeStore) => {
  it("is the highest turn left, with the turns missing below it named, never another thread's", async () => {
    const store = await makeStore();
    expect(await latestThreadRun(store, "t")).toEqual({ turn: 0, missingTurns: [] });
    for (const turn of [2, 3, 5, 9, 10]) await store.save(runState(threadRunId("t", turn)));
    // Other threads, one of them with more turns, and a run of no thread.
    for (const turn of [1, 11, 12]) await store.save(runState(threadRunId("other", turn)));
    await store.save(runState(`${threadRunId("t", 1)}x`));
    await store.save(runState("run_plain"));

    const head = await latestThreadRun(store, "t");
    expect([head.turn, head.state?.runId, head.missingTurns]).toEqual([
      10,
      threadRunId("t", 10),
      ["4", "6-8"],
    ]);
    expect(await latestThreadRun(store, "nobody")).toEqual({ turn: 0, missingTurns: [] });
  });
});
