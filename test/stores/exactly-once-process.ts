/**
 * One process of the exactly-once test, on the PostgreSQL store: with
 * `ONCE_RUN_ID` it resumes that run, taking it over (`resume --take-over`),
 * at each line read on stdin, and prints `{runId, status, error}`; otherwise it is a
 * RunWorker printing one such line per run it settles. Its agent has the
 * fleet's `delete_callbacks` and a tool of a user's own, `register_webhook`
 * (register-webhook-tool.ts), both reconciling a call cut short.
 *
 * At the start write, for the test only: `ONCE_AFTER_START` set to `stop`
 * makes the process stop itself (SIGSTOP) right after its start write, before
 * the call's request, and `kill` makes it die there (SIGKILL); either way
 * it prints `{"afterStart": what, "runId"}` first. `ONCE_AFTER_QUESTION=kill`
 * makes it die after sending a question, at the save that would record it.
 * `ONCE_STEPS` is the model's script (JSON). `ONCE_LOG=1` logs to stderr.
 */

import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { pino } from "pino";
import { type FleetServices, fleetAgentOptions } from "../../bench/fleet-agent.js";
import { Agent } from "../../src/agent/agent.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import type {
  CallStart,
  CallStartOutcome,
  RunSaveOptions,
} from "../../src/agent/durable/run-store.js";
import { RunWorker } from "../../src/agent/durable/run-worker.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";
import { registerWebhookTool } from "./register-webhook-tool.js";

const environment = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const afterStart = process.env.ONCE_AFTER_START;
const afterQuestion = process.env.ONCE_AFTER_QUESTION;

/** The store, stopping or dying right after a start write as `ONCE_AFTER_START` says. */
class PausingRunStore extends PostgresRunStore {
  override async startCall(
    state: RunState,
    start: CallStart,
    options?: RunSaveOptions,
  ): Promise<CallStartOutcome> {
    const outcome = await super.startCall(state, start, options);
    if (afterStart && start.approval && outcome.outcome === "started") {
      writeSync(1, `${JSON.stringify({ afterStart, runId: state.runId })}\n`);
      process.kill(process.pid, afterStart === "stop" ? "SIGSTOP" : "SIGKILL");
    }
    return outcome;
  }

  override async save(state: RunState, options?: RunSaveOptions): Promise<void> {
    // The question was sent; the save that records it is not made.
    if (afterQuestion && state.pendingCalls.some((call) => call.phase === "awaiting_approval")) {
      writeSync(1, `${JSON.stringify({ afterQuestion, runId: state.runId })}\n`);
      process.kill(process.pid, "SIGKILL");
    }
    return super.save(state, options);
  }
}

const services = JSON.parse(environment("ONCE_SERVICES")) as FleetServices;
const leaseMs = Number(environment("ONCE_LEASE_MS"));
const toolTimeoutMs = Number(environment("ONCE_TOOL_TIMEOUT_MS"));
const runStore = new PausingRunStore({
  connectionString: environment("ONCE_DATABASE_URL"),
  schema: environment("ONCE_SCHEMA"),
  leaseMs,
  poolSize: 4,
  // A partitioned process keeps trying, as a real one would.
  retry: { maxRetries: 1_000, maxRetryDelayMs: 200 },
});
const logger =
  process.env.ONCE_LOG === "1" ? pino({ level: "info" }, pino.destination(2)) : undefined;
const fleet = fleetAgentOptions(services, {
  toolTimeoutMs,
  ...(process.env.ONCE_STEPS ? { steps: JSON.parse(process.env.ONCE_STEPS) } : {}),
});
const agent = new Agent({
  ...fleet,
  tools: [...(fleet.tools ?? []), registerWebhookTool(services, toolTimeoutMs)],
  runStore,
  ...(logger ? { logger } : {}),
});
const line = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

const runId = process.env.ONCE_RUN_ID;
if (runId) {
  // Each line on stdin is a go: resume the run now (no process start in between).
  line({ ready: true });
  for await (const _ of createInterface({ input: process.stdin })) {
    try {
      const result = await agent.resume(runId, { takeOver: true });
      line({ runId, status: result.status, error: result.error?.message });
    } catch (error) {
      line({ runId, error: (error as Error).message });
    }
  }
  await runStore.close();
} else {
  const worker = new RunWorker({
    runStore,
    agent,
    owner: environment("ONCE_OWNER"),
    leaseMs,
    pollIntervalMs: 25,
    recheckAfterMs: 100,
    firstRecheckAfterMs: 50,
    ...(logger ? { logger } : {}),
    onRunSettled: ({ runId: settled, result, error }) =>
      line({ runId: settled, status: result?.status, error: error?.message }),
  });
  process.once("SIGTERM", async () => {
    await worker.stop({ release: true });
    await runStore.close();
    process.exit(0);
  });
  line({ ready: true });
  await worker.start();
}
