import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunReport } from "switchyard-agents/cli";
import { type Simulators, startSimulators } from "switchyard-agents/simulators";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run-cli.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { createTestIo } from "./cli-test-io.js";
import { type SimulatedService, simulatorVariables } from "./simulator-variables.js";

let simulators: Simulators;
const directories: string[] = [];

beforeAll(async () => {
  simulators = await startSimulators({
    reasoner: { scenario: "callback-cleanup" },
    // Nobody answers but the test, as the person would.
    messaging: { answer: "never", deliveryStepMs: 1 },
  });
});

afterAll(async () => {
  await simulators.close();
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

beforeEach(() => {
  simulators.orders.reset();
  simulators.messaging.reset();
});

/**
 * More callbacks on the retired host than one list shows (50), so the
 * cleanup deletes in rounds: `old` registered long ago, then `recent`
 * registered a minute ago (the example's policy keeps those).
 */
function addRetiredCallbacks(old: number, recent = 0): string[] {
  const callbacks = simulators.orders.state.callbacks;
  const added = (count: number, createdAt: string) =>
    Array.from({ length: count }, (_, index) => {
      const id = randomUUID();
      callbacks.push({
        id,
        url: `https://${retiredCallbackHost}/acme/extra-${callbacks.length}-${index}`,
        message_type: "orderEvent",
        api_version: "0.9",
        created_at: createdAt,
      });
      return id;
    });
  added(old, "2024-01-01T00:00:00Z");
  return added(recent, new Date(Date.now() - 60_000).toISOString());
}

const retiredLeft = () =>
  simulators.orders.callbacks().filter((callback) => callback.url.includes(retiredCallbackHost));
const deletionsReceived = () =>
  simulators.orders.requests.filter(
    (request) => request.method === "DELETE" && request.path === "/callbacks",
  );

async function environment(services?: readonly SimulatedService[]) {
  const directory = await mkdtemp(join(tmpdir(), "switchyard-standing-cli-"));
  directories.push(directory);
  return { SWITCHYARD_STATE_DIR: directory, ...simulatorVariables(simulators, services) };
}

async function switchyard(argv: string[], env: Record<string, string>) {
  const test = createTestIo({ env });
  const code = await runCli(argv, test.io);
  return { code, stdout: test.stdout(), stderr: test.stderr() };
}

describe("switchyard run: standing approvals", () => {
  it("at the terminal, 'approve this and up to 5 more like it' lets the later rounds run without asking", async () => {
    addRetiredCallbacks(60);
    // The command's own messaging simulator asks here; the orders and the model are the test's.
    const test = createTestIo({ env: await environment(["reasoner", "orders"]), terminal: true });
    Object.assign(test.io.stdout, { isTTY: false });
    const asked = new Promise<void>((resolve) => {
      test.io.stderr.on("data", () => {
        if (test.stderr().includes("Your choice")) resolve();
      });
    });
    const running = runCli(["run", "callback-cleanup", "--approve", "ask", "--json"], test.io);
    await asked;
    expect(test.stderr()).toContain("3) Approve this and up to 5 more like it [approve_standing]");
    expect(test.stderr()).toContain(
      'then up to 5 more calls of delete_callbacks in this run on service "orders"',
    );
    test.type("3");
    const code = await running;
    expect(code).toBe(0);
    expect(retiredLeft()).toEqual([]);
    expect(test.stderr().match(/Your choice/g)).toHaveLength(1);
    const report = JSON.parse(test.stdout()) as RunReport;
    expect(report.status).toBe("completed");
    const [granted, ...covered] = report.approvals;
    expect(granted).toMatchObject({ outcome: "approved", standing: { maxCalls: 5 } });
    expect(covered.length).toBeGreaterThan(0);
    covered.forEach((approval, index) => {
      expect(approval).toMatchObject({
        outcome: "approved",
        coveredBy: { approvalId: granted?.approvalId, use: index + 1, maxCalls: 5 },
      });
    });
    expect(test.stderr()).toMatch(/by the standing approval \S+ \(1 of 5\), not asked/);
  });

  it("never overrides a later explicit denial: a deny rule refuses a call the scope covers (--no-wait, then resume)", async () => {
    const recent = addRetiredCallbacks(50, 3);
    const env = await environment();
    const started = await switchyard(["run", "callback-cleanup", "--no-wait", "--json"], env);
    expect(started.code).toBe(0);
    const suspended = JSON.parse(started.stdout) as RunReport;
    expect(suspended.status).toBe("suspended");
    const interactionId = suspended.approvals[0]!.interactionId!;
    expect(
      simulators.messaging.interaction(interactionId)?.options.map((option) => option.id),
    ).toEqual(["approve", "deny", "approve_standing"]);
    simulators.messaging.answerInteraction(interactionId, "approve_standing");

    const resumed = await switchyard(["resume", suspended.runId!, "--json"], env);
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as RunReport;
    expect(report.approvals).toEqual([
      expect.objectContaining({ outcome: "approved", interactionId, standing: expect.anything() }),
      expect.objectContaining({
        outcome: "refused",
        code: "policy_denied",
        rule: "recently registered callbacks are kept",
      }),
    ]);
    // The first round ran; the second, which named the recently registered ones, did not.
    expect(deletionsReceived()).toHaveLength(1);
    expect(retiredLeft().map((callback) => callback.id)).toEqual(expect.arrayContaining(recent));
    // Only one question was ever put to the person.
    expect(simulators.messaging.interactions()).toHaveLength(1);

    const shown = await switchyard(["runs", "show", suspended.runId!], env);
    expect(shown.stdout).toContain(`approved by "subscription link`);
    expect(shown.stdout).toContain("policy_denied");

    const audit = await switchyard(["audit", "show", suspended.runId!], env);
    expect(audit.stdout).toContain("standing: 5 more like it until");
    expect(audit.stdout).toContain('by rule "recently registered callbacks are kept"');
  });

  it("survives --no-wait and resume: the scope approved covers the later rounds, and runs show says so", async () => {
    addRetiredCallbacks(60);
    const env = await environment();
    const started = await switchyard(["run", "callback-cleanup", "--no-wait", "--json"], env);
    const suspended = JSON.parse(started.stdout) as RunReport;
    const interactionId = suspended.approvals[0]!.interactionId!;
    simulators.messaging.answerInteraction(interactionId, "approve_standing");

    const resumed = await switchyard(["resume", suspended.runId!, "--json"], env);
    expect(resumed.code).toBe(0);
    expect(retiredLeft()).toEqual([]);
    expect(simulators.messaging.interactions()).toHaveLength(1);
    const grantedBy = (JSON.parse(resumed.stdout) as RunReport).approvals[0]?.approvalId;
    expect(grantedBy).toMatch(/\.[\w-]{22}$/);
    const shown = await switchyard(["runs", "show", suspended.runId!], env);
    expect(shown.stdout).toContain(`by the standing approval ${grantedBy} (use 1 of 5), not asked`);
  });
});
