import type { TestProject } from "vitest/node";
import { startTestPostgres } from "./start-test-postgres.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The PostgreSQL server of this test run; each test file uses schemas of its own. */
    databaseUrl: string;
  }
}

/**
 * Starts one PostgreSQL server for the whole test run, unless
 * `SWITCHYARD_TEST_DATABASE_URL` names one, and stops it at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.SWITCHYARD_TEST_DATABASE_URL?.trim();
  if (given) {
    project.provide("databaseUrl", given);
    return async () => {};
  }
  const server = await startTestPostgres({ durable: false });
  project.provide("databaseUrl", server.url);
  return () => server.stop();
}
