import { it } from "vitest";
import { startedByKeptAcrossResume } from "../agent/approval/people-approver.js";
import { usePostgresStores } from "../helpers/postgres-test-database.js";

const makeStore = usePostgresStores("started_by");

it("PostgreSQL: who started a run is kept across a suspend and a resume by another agent", async () => {
  await startedByKeptAcrossResume(makeStore());
});
