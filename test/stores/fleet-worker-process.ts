/**
 * One worker of the fleet test, as its own process: a RunWorker on the
 * PostgreSQL store, printing one JSON line per run it settles. SIGTERM
 * stops it once the runs in hand are done.
 */

import { buildFleetAgent, type FleetServices } from "../../bench/fleet-agent.js";
import { RunWorker } from "../../src/agent/durable/run-worker.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";

const environment = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const services = JSON.parse(environment("FLEET_SERVICES")) as FleetServices;
const leaseMs = Number(environment("FLEET_LEASE_MS"));
const runStore = new PostgresRunStore({
  connectionString: environment("FLEET_DATABASE_URL"),
  schema: environment("FLEET_SCHEMA"),
  leaseMs,
  poolSize: 6,
});
const worker = new RunWorker({
  runStore,
  // The tool takes a moment after its request, so a worker killed mid-call has most likely sent it.
  agent: buildFleetAgent(services, runStore, { afterCallMs: 20 }),
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
