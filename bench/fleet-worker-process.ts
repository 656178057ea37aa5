/**
 * One worker of the fleet figure, as its own process: a RunWorker on the
 * PostgreSQL store. Prints `{ready: true}` once started, then one line per
 * run it takes (`{runId, taken: true, at}`) and settles (`{runId, status, at}`); SIGTERM
 * stops it, after a last line with the CPU time it spent since it was ready, the
 * statements its store sent, and the claim statements among them with the
 * runs they handed out, and every statement the process's connections sent
 * (`{cpuMs, roundTrips, claimStatements, claimedRuns, statements}`).
 * Arguments: <database url> <schema> <services JSON> <owner> <concurrency> <recheck ms> [poll ms]
 */

import { RunWorker } from "../src/agent/durable/run-worker.js";
import { PostgresRunStore } from "../src/stores/postgres-run-store.js";
import { countStatements } from "./count-statements.js";
import { buildFleetAgent, type FleetServices } from "./fleet-agent.js";

const statements = countStatements();

const [
  databaseUrl = "",
  schema = "",
  servicesJson = "{}",
  owner = "",
  concurrency = "8",
  recheck = "1000",
  poll = "20",
] = process.argv.slice(2);
const runStore = new PostgresRunStore({
  connectionString: databaseUrl,
  schema,
  poolSize: Number(concurrency) + 2,
});
// The claim statements the worker sends (one claimDue fills its free slots).
let claimStatements = 0;
let claimedRuns = 0;
const claimDue = runStore.claimDue.bind(runStore);
runStore.claimDue = async (options) => {
  claimStatements++;
  const claims = await claimDue(options);
  claimedRuns += claims.length;
  return claims;
};
const worker = new RunWorker({
  runStore,
  agent: buildFleetAgent(JSON.parse(servicesJson) as FleetServices, runStore),
  owner,
  concurrency: Number(concurrency),
  pollIntervalMs: Number(poll),
  recheckAfterMs: Number(recheck),
  onRunTaken: ({ runId }) => {
    process.stdout.write(`${JSON.stringify({ runId, taken: true, at: Date.now() })}\n`);
  },
  onRunSettled: ({ runId, result }) => {
    process.stdout.write(`${JSON.stringify({ runId, status: result?.status, at: Date.now() })}\n`);
  },
});
// CPU from here on: the work, not the start-up (compiling the sources through tsx).
const startedCpu = process.cpuUsage();
const startedTrips = runStore.roundTrips;
const startedStatements = statements();
process.once("SIGTERM", async () => {
  await worker.stop();
  await runStore.close();
  const { user, system } = process.cpuUsage(startedCpu);
  process.stdout.write(
    `${JSON.stringify({
      cpuMs: (user + system) / 1000,
      roundTrips: runStore.roundTrips - startedTrips,
      claimStatements,
      claimedRuns,
      statements: statements() - startedStatements,
    })}\n`,
  );
  process.exit(0);
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await worker.start();
