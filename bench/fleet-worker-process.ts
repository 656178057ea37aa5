/**
 * One worker of the fleet figure, as its own process: a RunWorker on the
 * PostgreSQL store. Prints `{ready: true}` once started, then one line per
 * run it settles (`{runId, status, at}`, `at` in epoch milliseconds);
 * SIGTERM stops it, after a last line with the CPU time it spent since it was ready (`{cpuMs}`).
 * Arguments: <database url> <schema> <services JSON> <owner> <concurrency> <recheck ms>
 */

import { RunWorker } from "../src/agent/durable/run-worker.js";
import { PostgresRunStore } from "../src/stores/postgres-run-store.js";
import { buildFleetAgent, type FleetServices } from "./fleet-agent.js";

const [
  databaseUrl = "",
  schema = "",
  servicesJson = "{}",
  owner = "",
  concurrency = "8",
  recheck = "1000",
] = process.argv.slice(2);
const runStore = new PostgresRunStore({
  connectionString: databaseUrl,
  schema,
  poolSize: Number(concurrency) + 2,
});
const worker = new RunWorker({
  runStore,
  agent: buildFleetAgent(JSON.parse(servicesJson) as FleetServices, runStore),
  owner,
  concurrency: Number(concurrency),
  pollIntervalMs: 20,
  recheckAfterMs: Number(recheck),
  onRunSettled: ({ runId, result }) => {
    process.stdout.write(`${JSON.stringify({ runId, status: result?.status, at: Date.now() })}\n`);
  },
});
// CPU from here on: the work, not the start-up (compiling the sources through tsx).
const startedCpu = process.cpuUsage();
process.once("SIGTERM", async () => {
  await worker.stop();
  await runStore.close();
  const { user, system } = process.cpuUsage(startedCpu);
  process.stdout.write(`${JSON.stringify({ cpuMs: (user + system) / 1000 })}\n`);
  process.exit(0);
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await worker.start();
