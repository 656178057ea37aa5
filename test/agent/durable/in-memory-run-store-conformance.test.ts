import { describe, it } from "vitest";
import { InMemoryRunStore } from "../../../src/agent/durable/in-memory-run-store.js";
import { runQueueConformance, runStoreConformance } from "../../../src/testing/index.js";

runStoreConformance({
  name: "InMemoryRunStore as a run store",
  describe,
  it,
  createStore: () => new InMemoryRunStore(),
});

runQueueConformance({
  name: "InMemoryRunStore as a run queue",
  describe,
  it,
  createQueue: () => {
    const store = new InMemoryRunStore();
    return { store, queue: store };
  },
});
