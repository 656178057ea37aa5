import { createInterface } from "node:readline";
import pg from "pg";
import type { RunShowReport, RunsReport } from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { runCli } from "../../src/cli/run-cli.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { callbackTools } from "../agent/durable/durable-helpers.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";
import { createTestIo } from "./cli-test-io.js";
import { finished, spawnScript } from "./spawn-switchyard.js";

let simulators: Simulators;
const schema = uniqueSchema("cli");

beforeAll(async () => {
  simulators = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
});

afterAll(async () => {
  await simulators.close();
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

/** The variables `switchyard sim` prints, and the database runs are saved in. */
function environment(from: Simulators = simulators): Record<string, string> {
  const { reasoner, orders, messaging } = from;
  return {
    SWITCHYARD_REASONER_URL: reasoner.url,
    SWITCHYARD_REASONER_API_KEY: reasoner.apiKey,
    SWITCHYARD_ORDERS_URL: orders.url,
    SWITCHYARD_ORDERS_TOKEN: orders.token,
    SWITCHYARD_MESSAGING_URL: messaging.url,
    SWITCHYARD_MESSAGING_TOKEN: messaging.token!,
    SWITCHYARD_APPROVER_LINK: messaging.approverLinkId,
    SWITCHYARD_DATABASE_URL: testDatabaseUrl(),
    SWITCHYARD_DATABASE_SCHEMA: schema,
  };
}

/** A worker that gives up at the second failed attempt, retrying within milliseconds. */
const quickWorkerArguments = [
  "worker",
  "--max-attempts",
  "2",
  "--first-recheck-after",
  "10ms",
  "--recheck-after",
  "50ms",
  "--poll-interval",
  "20ms",
];

async function switchyard(argv: string[], env = environment()) {
  const test = createTestIo({ env });
  const code = await runCli(argv, test.io);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

it("run --no-wait saves to PostgreSQL, switchyard worker resumes the run once answered, SIGTERM stops it", async () => {
  const started = await switchyard(["run", "callback-cleanup", "--no-wait"]);
  expect(started.code).toBe(0);
  const runId = started.stdout.trim();
  const listed = await switchyard(["runs", "--json", "--status", "suspended"]);
  const report = JSON.parse(listed.stdout) as RunsReport;
  expect(report.directory).toBeNull();
  expect(report.database).toEqual({ schema });
  expect(report.where).toBe(`the PostgreSQL database, schema ${schema}`);
  expect(report.runs.map((run) => [run.runId, run.example])).toEqual([[runId, "callback-cleanup"]]);

  const interactionId = report.runs[0]?.pendingApprovals[0]?.interactionId ?? "";
  simulators.messaging.answerInteraction(interactionId, "approve");
  const worker = spawnScript("src/cli/main.ts", ["worker", "--concurrency", "2"], environment());
  const done = finished(worker);
  await new Promise<void>((resolve) => {
    createInterface({ input: worker.stdout! }).on("line", (line) => {
      if (line === `${runId} completed`) resolve();
    });
  });
  worker.kill("SIGTERM");
  const { code, stderr } = await done;
  expect(stderr).toContain(
    `resuming due runs from the PostgreSQL database, schema ${schema} (SWITCHYARD_DATABASE_URL)`,
  );
  expect(code).toBe(0);
  const deletions = simulators.orders.requests.filter(
    (request) => request.method === "DELETE" && request.path === "/callbacks",
  );
  expect(deletions).toHaveLength(1);
  const after = JSON.parse((await switchyard(["runs", "--json"])).stdout) as RunsReport;
  expect(after.runs.map((run) => run.status)).toEqual(["completed"]);

  // What the run did, read back from PostgreSQL.
  const shown = await switchyard(["runs", "show", runId, "--json"]);
  expect(shown.code).toBe(0);
  const shownReport = JSON.parse(shown.stdout) as RunShowReport;
  expect(shownReport).toMatchObject({ runId, status: "completed", error: null });
  expect(shownReport.answer).toMatch(/^Deleted 4 callbacks/);
  expect(shownReport.toolCalls).toContainEqual(
    expect.objectContaining({ toolName: "delete_callbacks", status: "succeeded" }),
  );
  expect(shownReport.approvals).toEqual([
    expect.objectContaining({
      toolName: "delete_callbacks",
      outcome: "approved",
      interactionId,
      approvedBy: `subscription link ${simulators.messaging.approverLinkId}`,
      fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    }),
  ]);
}, 120_000);

it("a worker that cannot reach its database prints each store error naming SWITCHYARD_DATABASE_URL, and exits 1 on SIGTERM", async () => {
  const wrong = new URL(testDatabaseUrl());
  wrong.password = "not-the-password";
  const worker = spawnScript("src/cli/main.ts", ["worker", "--poll-interval", "50ms"], {
    ...environment(),
    SWITCHYARD_DATABASE_URL: wrong.href,
  });
  const done = finished(worker);
  // Two errors: the worker says so each time it tries, not once.
  await new Promise<void>((resolve) => {
    let errors = 0;
    createInterface({ input: worker.stderr! }).on("line", (line) => {
      if (line.includes("could not take a due run") && ++errors === 2) resolve();
    });
  });
  worker.kill("SIGTERM");
  const { code, stderr } = await done;
  const errorLines = stderr.split("\n").filter((line) => line.includes("could not take a due run"));
  expect(errorLines[0]).toContain("(not reached yet)");
  expect(errorLines[0]).toContain("password authentication failed");
  expect(errorLines[0]).toContain("Check SWITCHYARD_DATABASE_URL");
  expect(stderr).not.toContain("not-the-password");
  expect(stderr).toContain("stopped without ever reaching the PostgreSQL database");
  expect(code).toBe(1);
}, 60_000);

it("worker --max-attempts 2 gives up on a run it cannot resume: it prints so, and runs show says failed, with the error and the attempts", async () => {
  // A run saved by code, not by switchyard run --no-wait: the worker cannot rebuild its agent.
  const store = new PostgresRunStore({ connectionString: testDatabaseUrl(), schema });
  let runId: string;
  try {
    const suspended = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] } }] },
      ]),
      tools: callbackTools().tools,
      approver: new ScriptedApprover(["pending"]),
      runStore: store,
    }).run("delete cb-1", { suspendOnApproval: true });
    runId = suspended.runId ?? "";
  } finally {
    await store.close();
  }
  const worker = spawnScript("src/cli/main.ts", quickWorkerArguments, environment());
  const done = finished(worker);
  const lines: string[] = [];
  await new Promise<void>((resolve) => {
    createInterface({ input: worker.stdout! }).on("line", (line) => {
      lines.push(line);
      if (line.startsWith(`${runId} failed`)) resolve();
    });
  });
  worker.kill("SIGTERM");
  expect((await done).code).toBe(0);
  const mine = lines.filter((line) => line.startsWith(runId));
  expect(mine).toHaveLength(2);
  expect(mine[0]).toMatch(
    /not resumed: .*was not started by switchyard run --no-wait.*attempt 1\)$/,
  );
  expect(mine[1]).toMatch(
    /failed: gave up after 2 failed attempts to resume it; the last: .*was not started by switchyard run --no-wait/,
  );

  const shown = JSON.parse((await switchyard(["runs", "show", runId, "--json"])).stdout);
  const report = shown as RunShowReport;
  expect(report.status).toBe("failed");
  expect(report.error?.name).toBe("RunAttemptsExhausted");
  expect(report.error?.message).toMatch(/^Gave up after 2 failed attempts to resume the run/);
  expect(report.schedule).toMatchObject({ attempts: 2, nextCheckAt: null });
  expect(report.approvals).toEqual([expect.objectContaining({ toolName: "delete_callbacks" })]);
  const text = (await switchyard(["runs", "show", runId])).stdout;
  expect(text).toContain("attempts:  2 failed in a row");
}, 60_000);

it("a worker that gives up on a run withdraws the question it waits for, as runs cancel does: nobody is left to approve an action that will not run", async () => {
  // Services of its own: the first test deleted the callbacks this run is about.
  const services = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
  try {
    await giveUpAndWithdraw(services);
  } finally {
    await services.close();
  }
}, 60_000);

async function giveUpAndWithdraw(services: Simulators) {
  const env = environment(services);
  const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
  expect(started.code).toBe(0);
  const runId = started.stdout.trim();
  const report = JSON.parse((await switchyard(["runs", "show", runId, "--json"], env)).stdout);
  const interactionId = (report as RunShowReport).approvals[0]?.interactionId ?? "";
  expect(services.messaging.interaction(interactionId)?.state).toBe("pending");
  // A worker deployed without the orders service cannot rebuild the run's agent.
  const { SWITCHYARD_ORDERS_URL: _url, SWITCHYARD_ORDERS_TOKEN: _token, ...withoutOrders } = env;
  const worker = spawnScript("src/cli/main.ts", quickWorkerArguments, withoutOrders);
  const done = finished(worker);
  try {
    await new Promise<void>((resolve) => {
      createInterface({ input: worker.stderr! }).on("line", (line) => {
        if (line.includes(`(interaction ${interactionId})`)) resolve();
      });
    });
  } finally {
    worker.kill("SIGTERM");
  }
  const { code, stdout, stderr } = await done;
  expect(code).toBe(0);
  expect(stdout).toMatch(
    new RegExp(
      `${runId} failed: gave up after 2 failed attempts to resume it; the last: .*SWITCHYARD_ORDERS_URL`,
    ),
  );
  expect(stderr).toContain(
    `withdrew the question about delete_callbacks (interaction ${interactionId}).`,
  );
  expect(services.messaging.interaction(interactionId)?.state).toBe("canceled");
}

it("a worker checking a question nobody answered yet prints one line that it is still open, not a line per check, then the run's end", async () => {
  const services = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
  try {
    const env = environment(services);
    const started = await switchyard(["run", "callback-cleanup", "--no-wait"], env);
    expect(started.code).toBe(0);
    const runId = started.stdout.trim();
    const report = JSON.parse((await switchyard(["runs", "show", runId, "--json"], env)).stdout);
    const interactionId = (report as RunShowReport).approvals[0]?.interactionId ?? "";
    const checks = () =>
      services.messaging.requests.filter(
        (request) => request.method === "GET" && request.path.endsWith(`/${interactionId}`),
      ).length;
    const worker = spawnScript("src/cli/main.ts", quickWorkerArguments, env);
    const done = finished(worker);
    const lines: string[] = [];
    let answerAfterChecks: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve) => {
        createInterface({ input: worker.stdout! }).on("line", (line) => {
          if (line.startsWith(runId)) lines.push(line);
          if (line === `${runId} completed`) resolve();
        });
        // Answered only once the worker has checked the open question several times.
        answerAfterChecks = setInterval(() => {
          if (checks() < 4) return;
          clearInterval(answerAfterChecks);
          services.messaging.answerInteraction(interactionId, "approve");
        }, 10);
      });
    } finally {
      clearInterval(answerAfterChecks);
      worker.kill("SIGTERM");
    }
    expect((await done).code).toBe(0);
    expect(lines).toEqual([
      `${runId} waiting for an answer: checked, its question is still open (nothing was sent again); the worker keeps checking and prints a line when that changes`,
      `${runId} completed`,
    ]);
    expect(services.messaging.messages()).toHaveLength(1);
  } finally {
    await services.close();
  }
}, 60_000);
