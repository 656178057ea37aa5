import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, inject } from "vitest";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";

/** The URL of the test run's PostgreSQL server (see `postgres-global-setup.ts`). */
export function testDatabaseUrl(): string {
  return inject("databaseUrl");
}

/** A schema name no other test (or test run on the same server) uses. */
export function uniqueSchema(label: string): string {
  return `test_${label}_${randomBytes(5).toString("hex")}`;
}

/**
 * Stores on the test server, each in a new schema, closed and dropped after
 * the file's tests.
 */
export function usePostgresStores(
  label: string,
): (options?: { leaseMs?: number; schema?: string }) => PostgresRunStore {
  const made: PostgresRunStore[] = [];
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      for (const schema of new Set(made.map((store) => store.schema))) {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      }
    } finally {
      await admin.end();
    }
    await Promise.all(made.map((store) => store.close()));
  });
  return (options = {}) => {
    const store = new PostgresRunStore({
      connectionString: testDatabaseUrl(),
      schema: options.schema ?? uniqueSchema(label),
      poolSize: 4,
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    });
    made.push(store);
    return store;
  };
}
