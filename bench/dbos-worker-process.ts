/**
 * One process of the DBOS figure: the fleet agent (`fleetAgentOptions`) as
 * a durable agent on DBOS (`dbosAgent`), launched on the bench's database.
 * Prints `{ready: true}` once launched, then reads one JSON command a line
 * on stdin and prints what it did:
 *
 * - `{suspend: n}`: starts n runs, each asking to delete a callback, and
 *   prints `{waiting: n}` once every one waits for its answer (`DBOS.recv`).
 * - `{wakeAll: true}`: counts CPU time and statements from here, and wakes
 *   every run it started (`wake(runId)`, `concurrency` at a time).
 * - `{wake: runId}`: wakes one run.
 * - `{start: runId}`: starts one run and prints `{runId, taken: true,
 *   waitedMs}` when its first step begins (it loads the run).
 * - `{settle: n}`: prints `{waiting: n}` once n runs in all waited for
 *   their answers (so that none is in flight when it stops).
 *
 * Each run it started prints `{runId, status, at}` when its workflow ends.
 * SIGTERM stops it, after a last line with the CPU time it spent and the
 * statements it sent since `wakeAll` (or since it was ready):
 * `{cpuMs, roundTrips}`.
 * Arguments: <database url> <dbos schema> <run store schema> <services JSON> <executor id> <concurrency>
 */

import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import type { ModelRequest } from "../src/agent/model.js";
import { runConcurrently } from "../src/agent/run-concurrently.js";
import { dbosAgent } from "../src/dbos/index.js";
import { ScriptedModel } from "../src/testing/index.js";
import { countStatements } from "./count-statements.js";
import { type FleetServices, fleetAgentOptions } from "./fleet-agent.js";

const [
  databaseUrl = "",
  dbosSchema = "",
  runStoreSchema = "",
  servicesJson = "{}",
  executorId = "",
  concurrency = "8",
] = process.argv.slice(2);
const statements = countStatements();
const say = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);

// The fleet's model, answering by the conversation (this process both
// suspends its runs and resumes them): a tool call first, "Done." after it.
const step = (request: ModelRequest) =>
  request.messages.some((message) => message.role === "tool")
    ? { text: "Done." }
    : { toolCalls: [{ name: "delete_callbacks", arguments: { ids: [randomUUID()] } }] };
const model = new ScriptedModel(Array.from({ length: 100_000 }, () => step));
const durable = dbosAgent(fleetAgentOptions(JSON.parse(servicesJson) as FleetServices, { model }), {
  databaseUrl,
  name: "bench",
  dbosSchema,
  runStoreSchema,
  executorId,
  applicationVersion: "bench",
  // Answers arrive through wake(), as the fleet's through the bench.
  checkSchedule: false,
});

// A run waits for its answer once its peek step read the question open.
let peeks = 0;
const peek = durable.agent.peekPendingAnswers.bind(durable.agent);
durable.agent.peekPendingAnswers = async (state) => {
  const result = await peek(state);
  if (result.pending) peeks++;
  return result;
};
// A run's first step begins by loading it.
const startedAt = new Map<string, number>();
const load = durable.runStore.load.bind(durable.runStore);
durable.runStore.load = (runId) => {
  const started = startedAt.get(runId);
  if (started !== undefined) {
    startedAt.delete(runId);
    say({ runId, taken: true, waitedMs: Date.now() - started });
  }
  return load(runId);
};

const runIds: string[] = [];
const start = async (runId: string) => {
  const handle = await durable.start("Delete the callback.", { runId });
  handle.result().then(
    (outcome) => say({ runId, status: outcome.status, at: Date.now() }),
    (error: unknown) => say({ runId, status: `threw: ${String(error)}`, at: Date.now() }),
  );
};

let cpuFrom = process.cpuUsage();
let statementsFrom = 0;
await durable.launch();
cpuFrom = process.cpuUsage();
statementsFrom = statements();

const handle = async (command: {
  suspend?: number;
  wakeAll?: boolean;
  wake?: string;
  start?: string;
  settle?: number;
}) => {
  if (command.suspend !== undefined) {
    const count = command.suspend;
    const before = peeks;
    const ids = Array.from(
      { length: count },
      (_, index) => `${executorId}-${index}-${randomUUID()}`,
    );
    await runConcurrently(ids, 32, async (runId) => {
      runIds.push(runId);
      await start(runId);
    });
    while (peeks - before < count) await sleep(10);
    say({ waiting: count });
  } else if (command.wakeAll) {
    cpuFrom = process.cpuUsage();
    statementsFrom = statements();
    await runConcurrently(runIds, Number(concurrency), (runId) => durable.wake(runId));
  } else if (command.wake !== undefined) {
    await durable.wake(command.wake);
  } else if (command.settle !== undefined) {
    while (peeks < command.settle) await sleep(10);
    say({ waiting: command.settle });
  } else if (command.start !== undefined) {
    startedAt.set(command.start, Date.now());
    await start(command.start);
  }
};
createInterface({ input: process.stdin }).on("line", (line) => {
  handle(JSON.parse(line)).catch((error: unknown) => {
    process.stderr.write(`dbos worker ${executorId}: ${String(error)}\n`);
    process.exit(1);
  });
});
process.once("SIGTERM", async () => {
  const { user, system } = process.cpuUsage(cpuFrom);
  const roundTrips = statements() - statementsFrom;
  try {
    await durable.shutdown();
  } finally {
    say({ cpuMs: (user + system) / 1000, roundTrips });
    process.exit(0);
  }
});
say({ ready: true });
