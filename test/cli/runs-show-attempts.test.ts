import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { RunShowReport } from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunStore } from "../../src/agent/durable/run-store.js";
import { runCli } from "../../src/cli/run-cli.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";
import { createTestIo } from "./cli-test-io.js";
import { simulatorVariables } from "./simulator-variables.js";

let simulators: Simulators;
let directory: string;
const schema = uniqueSchema("show_attempts");

beforeAll(async () => {
  simulators = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
  directory = await mkdtemp(join(tmpdir(), "switchyard-show-attempts-"));
});

afterAll(async () => {
  await simulators.close();
  await rm(directory, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

function environment(storage: "file" | "postgres"): Record<string, string> {
  return {
    ...simulatorVariables(simulators),
    ...(storage === "postgres"
      ? { SWITCHYARD_DATABASE_URL: testDatabaseUrl(), SWITCHYARD_DATABASE_SCHEMA: schema }
      : { SWITCHYARD_STATE_DIR: directory }),
  };
}

async function switchyard(argv: string[], storage: "file" | "postgres") {
  const test = createTestIo({ env: environment(storage) });
  const code = await runCli(argv, test.io);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

const stores = {
  file: () => new FileRunStore({ directory }),
  postgres: () => new PostgresRunStore({ connectionString: testDatabaseUrl(), schema }),
} satisfies Record<string, () => RunStore>;

for (const storage of ["file", "postgres"] as const) {
  it(`runs show prints a waiting run's next check, and the failed attempts and last error of one that could not be resumed (${storage})`, async () => {
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], storage);
    expect(started.code).toBe(0);
    const runId = started.stdout.trim();
    const store = stores[storage]();
    try {
      const waiting = JSON.parse(
        (await switchyard(["runs", "show", runId, "--json"], storage)).stdout,
      ) as RunShowReport;
      expect(waiting.schedule).toMatchObject({ attempts: 0, lastError: null });
      expect(waiting.schedule.nextCheckAt).toMatch(/^\d{4}-\d\d-\d\dT/);

      // Two attempts by a worker that failed, as a RunWorker records them.
      for (const error of ["the model service answered 503", 'the model said "\u001b[2Khi"']) {
        const claim = await store.claim(runId);
        await claim.release({ nextCheckAt: new Date(Date.now() + 3_600_000), error });
      }
      const shown = await switchyard(["runs", "show", runId, "--json"], storage);
      const report = JSON.parse(shown.stdout) as RunShowReport;
      expect(report.schedule).toMatchObject({
        attempts: 2,
        lastError: 'the model said "\u001b[2Khi"',
      });
      const text = (await switchyard(["runs", "show", runId], storage)).stdout;
      expect(text).toContain(`next check: ${report.schedule.nextCheckAt}`);
      expect(text).toContain(
        'attempts:  2 failed in a row; last error: "the model said \\"\\x1b[2Khi\\""',
      );
    } finally {
      if (store instanceof PostgresRunStore) await store.close();
    }
  }, 60_000);
}
