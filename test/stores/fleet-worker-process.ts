/**
 * One worker of the fleet test, as its own process: a RunWorker on the
 * PostgreSQL store, printing one JSON line per run it settles. SIGTERM
 * stops it once the runs in hand are done.
 *
 * Fault injection, for the test only: `FLEET_DIE` holds the chance (0 to 1)
 * that the process kills itself (SIGKILL) at each of three points of an
 * approved call: `before-start` (the answer read, the start not written),
 * `after-start` (the start written, the call not sent) and `in-call` (the
 * call answered by the service, its result not saved). It prints
 * `{"dying": point, "runId"}` (`"ids"`, the callbacks deleted, in a call)
 * first, so the test knows why it went. With `FLEET_DIE_FIRST_AT` naming one
 * of the points, the process dies there the first time it reaches it, for
 * certain, so every point is tried in every run of the test.
 */

import { writeSync } from "node:fs";
import { pino } from "pino";
import { buildFleetAgent, type FleetServices } from "../../bench/fleet-agent.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import type {
  CallStart,
  CallStartOutcome,
  RunSaveOptions,
} from "../../src/agent/durable/run-store.js";
import { RunWorker } from "../../src/agent/durable/run-worker.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";

const environment = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const dieChance = Number(process.env.FLEET_DIE ?? "0");
const dieFirstAt = process.env.FLEET_DIE_FIRST_AT;

/** At `FLEET_DIE_FIRST_AT`, or with `FLEET_DIE`'s chance: says where, then dies as a killed process does. */
function maybeDie(point: string, where: { runId?: string; ids?: readonly string[] }): void {
  if (point !== dieFirstAt && Math.random() >= dieChance) return;
  writeSync(1, `${JSON.stringify({ dying: point, ...where })}\n`);
  process.kill(process.pid, "SIGKILL");
}

/** The store, with the two points around the start write where the process may die. */
class FaultyRunStore extends PostgresRunStore {
  override async startCall(
    state: RunState,
    start: CallStart,
    options?: RunSaveOptions,
  ): Promise<CallStartOutcome> {
    if (start.approval) maybeDie("before-start", { runId: state.runId });
    const outcome = await super.startCall(state, start, options);
    if (start.approval && outcome.outcome === "started") {
      maybeDie("after-start", { runId: state.runId });
    }
    return outcome;
  }
}

const services = JSON.parse(environment("FLEET_SERVICES")) as FleetServices;
const leaseMs = Number(environment("FLEET_LEASE_MS"));
const runStore = new FaultyRunStore({
  connectionString: environment("FLEET_DATABASE_URL"),
  schema: environment("FLEET_SCHEMA"),
  leaseMs,
  poolSize: 6,
});
const worker = new RunWorker({
  runStore,
  ...(process.env.FLEET_LOG === "1"
    ? { logger: pino({ level: "info" }, pino.destination(2)) }
    : {}),
  // The tool takes a moment after its request, so a worker killed mid-call has most likely sent it.
  agent: buildFleetAgent(services, runStore, {
    afterCallMs: 20,
    // A call cut short is reconciled this long after its holder stopped acting.
    toolTimeoutMs: 3_000,
    onCalled: (ids) => maybeDie("in-call", { ids }),
  }),
  owner: environment("FLEET_OWNER"),
  concurrency: Number(environment("FLEET_CONCURRENCY")),
  leaseMs,
  pollIntervalMs: 25,
  recheckAfterMs: 200,
  onRunSettled: ({ runId, recovered, result, error }) => {
    process.stdout.write(
      `${JSON.stringify({ runId, recovered, status: result?.status, error: error?.message })}\n`,
    );
  },
});
process.once("SIGTERM", async () => {
  await worker.stop();
  await runStore.close();
  process.exit(0);
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await worker.start();
