import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { postgresMigrations, quoteIdentifier } from "../../src/stores/postgres-migrations.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";
import { endedRunState, suspendedRunState } from "../helpers/run-state-fixtures.js";
import { claimStatementOfVersion7 } from "./fixtures/claim-statement-version-7.js";

let admin: pg.Client;
const schemas: string[] = [];

beforeAll(async () => {
  admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
});

afterAll(async () => {
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

/** A schema brought to `version` as that version's Switchyard left it. */
async function schemaAtVersion(version: number): Promise<string> {
  const schema = uniqueSchema("migrations");
  schemas.push(schema);
  const quoted = quoteIdentifier(schema);
  await admin.query(`CREATE SCHEMA ${quoted}`);
  await admin.query(
    `CREATE TABLE ${quoted}.schema_migrations (
       version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  for (let applied = 1; applied <= version; applied++) {
    await admin.query((postgresMigrations[applied - 1] ?? "").replaceAll("{schema}", quoted));
    await admin.query(`INSERT INTO ${quoted}.schema_migrations (version) VALUES ($1)`, [applied]);
  }
  return schema;
}

it("a worker of the version before the budget's shards, still running when a newer one migrates, keeps claiming without a budget, and with one is refused by a message that says to restart it", async () => {
  const schema = await schemaAtVersion(7);
  const store = new PostgresRunStore({ connectionString: testDatabaseUrl(), schema, poolSize: 2 });
  try {
    await store.migrate();
    // A run waiting for an answer (a check) and a run whose holder died.
    await store.save(suspendedRunState("run-waiting"));
    await store.save(endedRunState("run-abandoned", { status: "running" }));
    await admin.query(
      `UPDATE "${schema}".runs SET next_check_at = now() - interval '1 minute'
        WHERE run_id = 'run-abandoned'`,
    );
    const oldClaim = claimStatementOfVersion7(schema);
    // With a budget: refused, whole (nothing claimed), saying what to do.
    await expect(admin.query(oldClaim, ["old-worker", 60_000, 5, 10])).rejects.toThrow(
      /check_budget_shards.*restart this worker on the version of Switchyard that migrated the schema/,
    );
    // Without one: it claims both, as it did.
    const { rows } = await admin.query<{ run_id: string }>(oldClaim, [
      "old-worker",
      60_000,
      null,
      10,
    ]);
    expect(rows.map((row) => row.run_id).sort()).toEqual(["run-abandoned", "run-waiting"]);
  } finally {
    await store.close();
  }
});
