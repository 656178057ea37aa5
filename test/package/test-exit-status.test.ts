import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repository = fileURLToPath(new URL("../../", import.meta.url));

/**
 * `npm test` and CI stop on its exit status, so a failing test must end the
 * run with a failure status, with the real PostgreSQL of the test setup
 * started and stopped as in every run.
 */
describe("the test run's exit status", () => {
  // Inside the repository, so that the test and its config resolve vitest; under
  // node_modules, so that no other run's include picks the failing test up.
  const cache = join(repository, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const directory = mkdtempSync(join(cache, "switchyard-exit-status-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("is a failure when a test fails, after the test PostgreSQL has stopped", () => {
    writeFileSync(
      join(directory, "fails.check.ts"),
      'import { expect, it } from "vitest";\nit("fails", () => { expect(1).toBe(2); });\n',
    );
    writeFileSync(
      join(directory, "vitest.config.ts"),
      [
        'import { defineConfig } from "vitest/config";',
        "export default defineConfig({",
        "  test: {",
        '    include: ["fails.check.ts"],',
        `    globalSetup: [${JSON.stringify(join(repository, "test", "helpers", "postgres-global-setup.ts"))}],`,
        "  },",
        "});",
      ].join("\n"),
    );
    const environment = { ...process.env };
    delete environment.SWITCHYARD_TEST_DATABASE_URL;
    const run = spawnSync(
      process.execPath,
      [join(repository, "node_modules", "vitest", "vitest.mjs"), "run", "--root", directory],
      { cwd: repository, encoding: "utf8", env: environment },
    );
    expect(run.stdout + run.stderr).toContain("1 failed");
    expect(run.status).toBe(1);
  }, 120_000);
});
