import { describe, it } from "vitest";
import { runStoreConformance } from "../../src/testing/index.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";

const makeStore = usePostgresStores("conformance");

runStoreConformance({
  name: "PostgresRunStore conformance",
  describe,
  it,
  createStore: () => makeStore(),
});
