import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunsReport } from "switchyard-agents/cli";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { createTestIo } from "./cli-test-io.js";

async function switchyard(argv: string[], env: Record<string, string> = {}) {
  const test = createTestIo({ env });
  const code = await runCli(argv, test.io);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

describe("switchyard runs <action> --help", () => {
  it.each([
    ["show", "switchyard runs show <run-id> [--json]", "--json"],
    ["cancel", "switchyard runs cancel <run-id> [--take-over]", "--take-over"],
    ["prune", "switchyard runs prune --older-than AGE", "--older-than AGE"],
  ])("runs %s --help prints its own usage and flags", async (action, usage, flag) => {
    const { code, stdout, stderr } = await switchyard(["runs", action, "--help"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout.split("\n")[0]).toBe(`Usage: ${usage}`);
    expect(stdout).toContain(flag);
    expect(stdout).not.toContain("--status STATUS");
  });

  it("runs --help still describes the listing and names every action", async () => {
    const { code, stdout } = await switchyard(["runs", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--status STATUS");
    for (const action of ["runs show", "runs cancel", "runs prune"])
      expect(stdout).toContain(action);
  });
});

describe("switchyard runs --json", () => {
  const directory = mkdtempSync(join(tmpdir(), "switchyard-runs-json-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("puts only the state directory's path in directory, and where it is in words in where", async () => {
    const { code, stdout } = await switchyard(["runs", "--json"], {
      SWITCHYARD_STATE_DIR: directory,
    });
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as RunsReport;
    expect(report).toEqual({
      directory,
      database: null,
      where: directory,
      runs: [],
      unreadable: [],
    });
  });
});
