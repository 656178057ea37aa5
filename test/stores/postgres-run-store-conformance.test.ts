import { describe, it } from "vitest";
import { runQueueConformance, runStoreConformance } from "../../src/testing/index.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";

const makeStore = usePostgresStores("conformance");

runStoreConformance({
  name: "PostgresRunStore as a run store",
  describe,
  it,
  createStore: () => makeStore(),
});

runQueueConformance({
  name: "PostgresRunStore as a run queue",
  describe,
  it,
  createQueue: async () => {
    const store = await makeStore();
    return { store, queue: store };
  },
});
