/**
 * One process of the FileRunStore race test: resumes each run named in
 * `RACE_RUNS` (a JSON list), taking it over from whoever holds it, and
 * prints one JSON line per run: `{runId, status, error}`.
 *
 * Fault injection, for the test only: with `RACE_DIE_BEFORE_START` set to a
 * run id, the process kills itself (SIGKILL) when that run's approved call
 * is about to be started (the answer read, the start not written: the
 * process dies at the write that records the call started), after printing
 * `{"dying": "before-start", "runId"}`.
 */

import { writeSync } from "node:fs";
import { buildFleetAgent, type FleetServices } from "../../bench/fleet-agent.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import type {
  CallStart,
  CallStartOutcome,
  RunSaveOptions,
} from "../../src/agent/durable/run-store.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";

const environment = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const dieAt = process.env.RACE_DIE_BEFORE_START;

/** Dies, saying so, when `state` is the run to die on. */
function maybeDie(state: RunState): void {
  if (state.runId !== dieAt) return;
  writeSync(1, `${JSON.stringify({ dying: "before-start", runId: state.runId })}\n`);
  process.kill(process.pid, "SIGKILL");
}

class FaultyFileRunStore extends FileRunStore {
  /** A save that would record a call started (how stores before `startCall` did it) is a start write too. */
  override async save(state: RunState, options?: RunSaveOptions): Promise<void> {
    if (state.pendingCalls.some((call) => call.phase === "started")) maybeDie(state);
    return super.save(state, options);
  }

  override async startCall(
    state: RunState,
    start: CallStart,
    options?: RunSaveOptions,
  ): Promise<CallStartOutcome> {
    if (start.approval) maybeDie(state);
    return super.startCall(state, start, options);
  }
}

const services = JSON.parse(environment("RACE_SERVICES")) as FleetServices;
// Short leases and timeouts: a run taken over mid-call waits for the call
// (the other holder's lease, then the tool's timeout) before it is reconciled.
const runStore = new FaultyFileRunStore({
  directory: environment("RACE_DIRECTORY"),
  leaseMs: Number(environment("RACE_LEASE_MS")),
});
const agent = buildFleetAgent(services, runStore, {
  afterCallMs: 5,
  toolTimeoutMs: Number(environment("RACE_TOOL_TIMEOUT_MS")),
});
const runIds = JSON.parse(environment("RACE_RUNS")) as string[];
for (const runId of runIds) {
  try {
    const result = await agent.resume(runId, { takeOver: true });
    process.stdout.write(
      `${JSON.stringify({ runId, status: result.status, error: result.error?.message })}\n`,
    );
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ runId, error: (error as Error).message })}\n`);
  }
}
