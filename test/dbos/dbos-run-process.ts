/**
 * One process of the DBOS fault test: launches a durable agent on the test's
 * database (recovering the runs the last process left in flight), starts the
 * runs `DBOS_TEST_RUNS` names (`[{ runId, task }]`), and prints one JSON line per event:
 * `{"ready": true}`, `{"model": task}` for each request the model is really
 * sent (with the run's task), `{"dying": point}` before it kills itself (SIGKILL, as a crash) at
 * `DBOS_TEST_DIE_AT`, in the run deleting callback `DBOS_TEST_DIE_FOR`: `asking` (the model answered and DBOS recorded it, the
 * approval not asked yet) or `in-call` (the call's start recorded and its
 * request answered by the service, its result not saved). With
 * `DBOS_TEST_EXECUTOR` it is that executor; with `DBOS_TEST_RECOVER_EXECUTOR`
 * it takes over the runs of that one (a process of the fleet that died),
 * printing `{"recovered": [run ids]}`. SIGTERM shuts it down. With
 * `DBOS_TEST_SHUTDOWN_AT=in-call` it shuts itself down instead of dying
 * there, printing `{"shutdown": "begun"}` and `{"shutdown": "done"}`; the
 * tool then takes `DBOS_TEST_AFTER_CALL_MS` more (a slow call in flight).
 * `DBOS_TEST_DIE_AT=model` dies while the model is asked for that run (its
 * model call's workflow in flight); `DBOS_TEST_DIE_AT=checking` dies in the
 * first scheduled check of pending approvals (its workflow in flight),
 * which runs on `DBOS_TEST_CHECK_SCHEDULE` (a cron expression; none without
 * it). With `DBOS_TEST_LOG_LEVEL` the agent logs at that level (and DBOS
 * at it) as JSON lines on stderr.
 */

import { writeSync } from "node:fs";
import type { ModelRequest } from "../../src/agent/model.js";
import { dbosAgent } from "../../src/dbos/index.js";
import { createLogger } from "../../src/internal/logger.js";
import { ScriptedModel } from "../../src/testing/index.js";
import {
  conversationModel,
  type DbosTestServices,
  dbosTestAgentOptions,
} from "./dbos-test-agent.js";

const environment = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const say = (message: object) => writeSync(1, `${JSON.stringify(message)}\n`);
const dieAt = process.env.DBOS_TEST_DIE_AT;
const dieFor = process.env.DBOS_TEST_DIE_FOR;
const shutdownAt = process.env.DBOS_TEST_SHUTDOWN_AT;
const shutDown = (point: string, ids: readonly string[]) => {
  if (point !== shutdownAt || !dieFor || !ids.includes(dieFor)) return;
  say({ shutdown: "begun" });
  void durable.shutdown().then(() => say({ shutdown: "done" }));
};
const die = (point: string, ids: readonly string[]) => {
  if (point !== dieAt || !dieFor || !ids.includes(dieFor)) return;
  say({ dying: point });
  process.kill(process.pid, "SIGKILL");
};

// The conversation model, telling the test of each request it is really sent.
const answering = conversationModel();
const model = new ScriptedModel(
  Array.from({ length: 1_000 }, () => async (request: ModelRequest) => {
    const task = request.messages.find((message) => message.role === "user")?.content;
    say({ model: String(task) });
    if (dieAt === "model" && dieFor && String(task).includes(dieFor)) die("model", [dieFor]);
    return answering.complete(request);
  }),
);
const options = dbosTestAgentOptions(
  JSON.parse(environment("DBOS_TEST_SERVICES")) as DbosTestServices,
  model,
  (ids) => {
    die("in-call", ids);
    shutDown("in-call", ids);
  },
  undefined,
  process.env.DBOS_TEST_AFTER_CALL_MS ? Number(process.env.DBOS_TEST_AFTER_CALL_MS) : undefined,
  (ids) => {
    // After the start record, before the request: the process stalls (SIGSTOP) there.
    if (dieAt !== "stop-before-call" || !dieFor || !ids.includes(dieFor)) return;
    say({ dying: dieAt });
    process.kill(process.pid, "SIGSTOP");
  },
  process.env.DBOS_TEST_TOOL_TIMEOUT_MS ? Number(process.env.DBOS_TEST_TOOL_TIMEOUT_MS) : undefined,
);
const approver = options.approver!;
const ask = approver.ask.bind(approver);
approver.ask = (actions, context) => {
  die(
    "asking",
    actions.flatMap((action) => (action.arguments as { ids: string[] }).ids),
  );
  return ask(actions, context);
};

const logLevel = process.env.DBOS_TEST_LOG_LEVEL;
const durable = dbosAgent(
  logLevel ? { ...options, logger: createLogger({ level: logLevel }) } : options,
  {
    databaseUrl: environment("DBOS_TEST_DATABASE_URL"),
    dbosSchema: environment("DBOS_TEST_DBOS_SCHEMA"),
    runStoreSchema: environment("DBOS_TEST_RUN_SCHEMA"),
    // The run reads its question again this often: answers come without wake().
    approvalWaitMs: 100,
    checkSchedule: process.env.DBOS_TEST_CHECK_SCHEDULE ?? false,
    ...(logLevel ? { logLevel } : {}),
    // A killed process's claim lapses soon, and its runs go on elsewhere.
    leaseMs: 1_500,
    ...(process.env.DBOS_TEST_EXECUTOR ? { executorId: process.env.DBOS_TEST_EXECUTOR } : {}),
  },
);
let saidReady: () => void = () => {};
const ready = new Promise<void>((resolve) => {
  saidReady = resolve;
});
if (dieAt === "checking") {
  // The scheduled check's step calls this: the process dies with the check's
  // workflow in flight (once it said it is ready, so the test knows it launched).
  durable.checkApprovals = async () => {
    await ready;
    say({ dying: "checking" });
    process.kill(process.pid, "SIGKILL");
    return [];
  };
}
await durable.launch();
const recover = process.env.DBOS_TEST_RECOVER_EXECUTOR;
if (recover) say({ recovered: await durable.recoverExecutor(recover) });
const runs = JSON.parse(process.env.DBOS_TEST_RUNS ?? "[]") as Array<{
  runId: string;
  task: string;
}>;
for (const { runId, task } of runs) await durable.start(task, { runId });
// No process.exit(): the process ends once shutdown() closed all it opened.
process.once("SIGTERM", () => durable.shutdown());
say({ ready: true });
saidReady();
