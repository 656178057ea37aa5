import { describe, it } from "vitest";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { runQueueConformance, runStoreConformance } from "../../src/testing/index.js";
import { useTemporaryDirectories } from "../agent/durable/durable-helpers.js";

const makeDirectory = useTemporaryDirectories();

runStoreConformance({
  name: "FileRunStore as a run store",
  describe,
  it,
  createStore: async () => new FileRunStore({ directory: await makeDirectory() }),
});

runQueueConformance({
  name: "FileRunStore as a run queue",
  describe,
  it,
  createQueue: async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    return { store, queue: store };
  },
});
