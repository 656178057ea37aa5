import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildFleetAgent, type FleetServices, fleetServicesOf } from "../../bench/fleet-agent.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { useTemporaryDirectories } from "../agent/durable/durable-helpers.js";

const makeDirectory = useTemporaryDirectories();
let messaging: MessagingSimulator;
let orders: OrdersSimulator;

beforeAll(async () => {
  [messaging, orders] = await Promise.all([
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
});

afterAll(async () => {
  await Promise.all([messaging.close(), orders.close()]);
});

const tsxLoader = createRequire(import.meta.url).resolve("tsx");

/** The claims' lease and the tool's timeout of every race process (the test waits them out). */
const raceLeaseMs = 1_000;
const raceToolTimeoutMs = 1_000;

type Line = { runId: string; status?: string; error?: string; dying?: string };

/** Runs file-race-process.ts over `runIds`; resolves with its lines and how it ended. */
function raceProcess(
  directory: string,
  services: FleetServices,
  runIds: readonly string[],
  dieBeforeStart?: string,
): Promise<{ lines: Line[]; code: number | null; signal: NodeJS.Signals | null }> {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./file-race-process.ts", import.meta.url).pathname],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        RACE_DIRECTORY: directory,
        RACE_SERVICES: JSON.stringify(services),
        RACE_RUNS: JSON.stringify(runIds),
        RACE_LEASE_MS: String(raceLeaseMs),
        RACE_TOOL_TIMEOUT_MS: String(raceToolTimeoutMs),
        ...(dieBeforeStart ? { RACE_DIE_BEFORE_START: dieBeforeStart } : {}),
      },
    },
  );
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += String(chunk);
  });
  return new Promise((resolve) =>
    child.once("exit", (code, signal) =>
      resolve({
        lines: output
          .trim()
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line) as Line),
        code,
        signal,
      }),
    ),
  );
}

it("FileRunStore: a process killed between reading the approval and starting the call leaves it to the next, and two processes racing for the same runs (taking each over mid-call) send each approved deletion exactly once, never refusing it as already used", async () => {
  const directory = await makeDirectory();
  const store = new FileRunStore({ directory });
  const services = fleetServicesOf(orders, messaging);
  const runCount = 10;
  const idsOf = new Map<string, string>();
  const starter = buildFleetAgent(services, store, {
    steps: Array.from({ length: runCount }, () => ({
      toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }],
    })),
  });
  for (let index = 0; index < runCount; index++) {
    const result = await starter.run("Delete the callback.", { suspendOnApproval: true });
    const call = result.state?.pendingCalls[0];
    idsOf.set(result.runId ?? "", (call?.arguments as { ids: string[] } | undefined)?.ids[0] ?? "");
    messaging.answerInteraction(call?.interactionId ?? "", "approve");
  }
  const runIds = [...idsOf.keys()];
  const [first = "", ...rest] = runIds;

  // A process reads the approval of the first run and is killed before the start is written.
  const killed = await raceProcess(directory, services, [first], first);
  expect(killed.signal).toBe("SIGKILL");
  expect(killed.lines).toEqual([{ dying: "before-start", runId: first }]);
  // The next process takes the run over: the approval is unspent, and it runs the call once.
  const next = await raceProcess(directory, services, [first]);
  expect(next.code).toBe(0);
  expect(next.lines).toEqual([{ runId: first, status: "completed" }]);

  // Two processes race for each of the other runs, taking them from each other.
  const [one, two] = await Promise.all([
    raceProcess(directory, services, rest),
    raceProcess(directory, services, rest),
  ]);
  expect([one.code, two.code]).toEqual([0, 0]);
  // A run one took from the other while its call was in flight waits for
  // that call (the lease it was taken from, then the tool's timeout): it is
  // neither run again nor reported meanwhile, and is reconciled after.
  const left: string[] = [];
  for (const runId of rest) {
    if ((await store.load(runId)).status !== "completed") left.push(runId);
  }
  if (left.length > 0) {
    await sleep(2 * (raceLeaseMs + raceToolTimeoutMs));
    const last = await raceProcess(directory, services, left);
    expect(last.lines.map((line) => line.status)).toEqual(left.map(() => "completed"));
  }

  const deletions = new Map<string, number>();
  for (const request of orders.requests) {
    if (request.method !== "DELETE" || request.path !== "/callbacks") continue;
    for (const id of request.body as string[]) deletions.set(id, (deletions.get(id) ?? 0) + 1);
  }
  expect(deletions.get(idsOf.get(first) ?? "")).toBe(1);
  for (const [runId, id] of idsOf) {
    const state = await store.load(runId);
    expect(
      state.status,
      JSON.stringify(
        [one.lines, two.lines].map((lines) => lines.filter((line) => line.runId === runId)),
      ),
    ).toBe("completed");
    const told = state.messages.find((message) => message.role === "tool")?.content ?? "";
    expect(told).not.toContain("already_used");
    expect(told).not.toContain("outcome_unknown");
    // Taken over mid-call or not: one deletion request, never two.
    expect(deletions.get(id), `the approved deletion of run ${runId}`).toBe(1);
  }
}, 120_000);

/** Runs file-budget-process.ts on the directory; resolves with the run ids it claimed. */
function claimingProcess(directory: string, rate: number, calls: number): Promise<string[]> {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, new URL("./file-budget-process.ts", import.meta.url).pathname],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        BUDGET_DIRECTORY: directory,
        BUDGET_RATE: String(rate),
        BUDGET_CALLS: String(calls),
      },
    },
  );
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += String(chunk);
  });
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => {
      if (code === 0) resolve(JSON.parse(output) as string[]);
      else reject(new Error(`the claiming process exited with ${code}: ${output}`));
    }),
  );
}

it("FileRunStore: the processes sharing a state directory share its budget of approval checks", async () => {
  const directory = await makeDirectory();
  const store = new FileRunStore({ directory });
  const runCount = 6;
  const starter = buildFleetAgent(fleetServicesOf(orders, messaging), store, {
    steps: Array.from({ length: runCount }, () => ({
      toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }],
    })),
  });
  for (let index = 0; index < runCount; index++) {
    const started = await starter.run("Delete the callback.", { suspendOnApproval: true });
    expect(started.status).toBe("suspended");
  }
  // One check saved up, the next a thousand seconds later: of two processes
  // claiming at once, and a third after them, one check goes out in all.
  const together = await Promise.all([
    claimingProcess(directory, 0.001, 3),
    claimingProcess(directory, 0.001, 3),
  ]);
  const after = await claimingProcess(directory, 0.001, 3);
  expect([...together, after].flat()).toHaveLength(1);
  // Every run is still due to the claimers without a budget, but the one taken.
  const unlimited = await store.claimDue({ max: 10 });
  expect(unlimited).toHaveLength(runCount - 1);
  for (const claim of unlimited) await claim.release();
}, 60_000);
