import { describe, it } from "vitest";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { runStoreConformance } from "../../src/testing/index.js";
import { useTemporaryDirectories } from "../agent/durable/durable-helpers.js";

const makeDirectory = useTemporaryDirectories();

runStoreConformance({
  name: "FileRunStore conformance",
  describe,
  it,
  createStore: async () => new FileRunStore({ directory: await makeDirectory() }),
});
