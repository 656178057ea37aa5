import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunReport, RunsReport } from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { createTestIo } from "./cli-test-io.js";
import { simulatorVariables } from "./simulator-variables.js";
import { runSwitchyard } from "./spawn-switchyard.js";

let simulators: Simulators;
let directory: string;

beforeAll(async () => {
  simulators = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
  directory = await mkdtemp(join(tmpdir(), "switchyard-budget-"));
});

afterAll(async () => {
  await simulators.close();
  await rm(directory, { recursive: true, force: true });
});

function parseJsonLine<Value>(stdout: string): Value {
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Value;
}

/** The audit log's records, as `switchyard` appended them. */
async function auditRecords(file: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(file, "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { record?: Record<string, unknown> })
    .map((entry) => entry.record ?? (entry as Record<string, unknown>));
}

async function switchyard(argv: string[], env: Record<string, string> = {}) {
  const test = createTestIo({ env });
  const code = await runCli(argv, test.io);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

/** `switchyard run callback-cleanup --approve <answer> <flags> --json` in a child process, simulators inside. */
function runCleanup(answer: "approve" | "deny", flags: string[], env: Record<string, string> = {}) {
  return runSwitchyard(["run", "callback-cleanup", "--approve", answer, ...flags, "--json"], env);
}

describe("a run's budget on the command line", () => {
  it("--max-tool-calls stops the run with status budget_exhausted, exit 1; the call beyond it never runs", async () => {
    const { code, stdout, stderr } = await runCleanup("approve", ["--max-tool-calls", "1"]);

    expect(code).toBe(1);
    const report = parseJsonLine<RunReport>(stdout);
    expect(report.status).toBe("budget_exhausted");
    expect(report.error).toMatchObject({ name: "BudgetExhaustedError" });
    expect(report.toolCalls.map((call) => [call.name, call.status])).toEqual([
      ["list_callbacks", "succeeded"],
      ["delete_callbacks", "refused"],
    ]);
    expect(report.toolCalls[1]).toMatchObject({ error: { code: "budget_exhausted" } });
    // Nobody was asked to delete anything: the call never reached the gate.
    expect(report.approvals).toEqual([]);
    expect(stderr).toContain("not run (the run's tool-call budget is spent)");
    expect(stderr).toMatch(
      /run budget_exhausted \(.*\): The run reached its budget of 1 tool call \(1 used\)/,
    );
    // The way out is the command's flags, not the library's options.
    expect(stderr).toContain(
      "Start a new run with a larger --max-tool-calls, or add --extend-budget to let a person extend it.",
    );
    expect(stderr).not.toContain("onExhausted");
  });

  it("--max-tokens stops the run before its next model call", async () => {
    const { code, stdout } = await runCleanup("approve", ["--max-tokens", "100"]);

    expect(code).toBe(1);
    const report = parseJsonLine<RunReport>(stdout);
    expect(report.status).toBe("budget_exhausted");
    expect(report.steps).toHaveLength(1);
    expect(report.error?.message).toContain("budget of 100 tokens");
  });

  it("--extend-budget asks the approver; approved, the run goes on, and the audit log has the decision", async () => {
    const audit = join(directory, "approved.jsonl");
    const { code, stdout, stderr } = await runCleanup(
      "approve",
      ["--max-tool-calls", "1", "--extend-budget"],
      {
        SWITCHYARD_AUDIT_LOG: audit,
      },
    );

    expect(code, stderr).toBe(0);
    expect(parseJsonLine<RunReport>(stdout).status).toBe("completed");
    // The question says what the agent wants to do with the extension; the progress shows it asked and answered.
    expect(stderr).toContain(
      "  ? the run's budget is spent; asking the person: Allow 1 more tool call in this run.\n",
    );
    expect(stderr).toMatch(
      /- next, if extended: this tool call \(JSON\) \(the agent's words\):\n +\| \{"tool":"delete_callbacks","arguments":\{"callback_ids":\["/,
    );
    expect(stderr).toMatch(/\n {2}budget extension approved (by .+ )?after \S+\n/);
    const records = await auditRecords(audit);
    expect(records.map((record) => [record.action, record.outcome])).toEqual([
      ["extend_run_budget", "approved"],
      ["delete_callbacks", "approved"],
    ]);
  });

  it("--extend-budget denied: the run stops with budget_exhausted, exit 1, the denial recorded", async () => {
    const audit = join(directory, "denied.jsonl");
    const { code, stdout, stderr } = await runCleanup(
      "deny",
      ["--max-tool-calls", "1", "--extend-budget"],
      {
        SWITCHYARD_AUDIT_LOG: audit,
      },
    );

    expect(code).toBe(1);
    const report = parseJsonLine<RunReport>(stdout);
    expect(report.status).toBe("budget_exhausted");
    expect(report.error?.message).toContain("the extension was not approved (denied");
    expect(stderr).toContain("  ? the run's budget is spent; asking the person: ");
    expect(stderr).toMatch(/\n {2}budget extension refused \(denied\)( after \S+)?: /);
    expect(report.toolCalls.map((call) => call.status)).toEqual(["succeeded", "refused"]);
    const records = await auditRecords(audit);
    expect(records).toEqual([
      expect.objectContaining({ action: "extend_run_budget", outcome: "refused", code: "denied" }),
    ]);
  });

  it("switchyard runs shows a saved run that reached its budget", async () => {
    const env = {
      ...simulatorVariables(simulators),
      SWITCHYARD_STATE_DIR: join(directory, "state"),
    };
    const started = await switchyard(
      ["run", "callback-cleanup", "--no-wait", "--max-tool-calls", "1", "--json"],
      env,
    );
    expect(started.code).toBe(1);
    const report = parseJsonLine<RunReport>(started.stdout);
    expect(report.status).toBe("budget_exhausted");

    const listed = await switchyard(["runs", "--status", "budget_exhausted", "--json"], env);
    expect(listed.code).toBe(0);
    expect(parseJsonLine<RunsReport>(listed.stdout).runs).toEqual([
      expect.objectContaining({ runId: report.runId, status: "budget_exhausted" }),
    ]);
    const table = await switchyard(["runs"], env);
    expect(table.stdout).toContain("budget_exhausted");
  });

  it("bad budget flags are usage errors (exit 2) that say what to write", async () => {
    for (const given of ["many", "-1", "0"]) {
      const wrong = await switchyard(["run", "callback-cleanup", "--max-tool-calls", given]);
      expect(wrong.code, given).toBe(2);
      expect(wrong.stderr).toContain(
        `--max-tool-calls must be a whole number of at least 1, e.g. --max-tool-calls 20; got "${given}". To let a person allow more tool calls when the budget runs out, add --extend-budget.`,
      );
    }
    const noTokens = await switchyard(["run", "callback-cleanup", "--max-tokens", "0"]);
    expect(noTokens.code).toBe(2);
    expect(noTokens.stderr).toContain(
      '--max-tokens must be a whole number of at least 1, e.g. --max-tokens 20; got "0". To let a person allow more tokens when the budget runs out, add --extend-budget.',
    );
    const nothingToExtend = await switchyard(["run", "callback-cleanup", "--extend-budget"]);
    expect(nothingToExtend.code).toBe(2);
    expect(nothingToExtend.stderr).toContain("--extend-budget needs a budget to extend");
  });
});
