import { setTimeout as sleep } from "node:timers/promises";
import type { Pool } from "pg";
import { Agent } from "../agent/agent.js";
import type { AgentOptions } from "../agent/agent-options.js";
import { findStartedByProblem } from "../agent/approval/run-starter.js";
import { describeThrown } from "../agent/describe-thrown.js";
import { RunNotFoundError } from "../agent/durable/durable-errors.js";
import { firstRecheckAfterMs } from "../agent/durable/recheck-schedule.js";
import { findRunIdProblem, newRunId } from "../agent/durable/run-id.js";
import type { RunState, RunStateStatus } from "../agent/durable/run-state.js";
import type { RunOptions } from "../agent/run-options.js";
import type { RunResult } from "../agent/run-result.js";
import type { AgentInput } from "../agent/start-conversation.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { redactText } from "../internal/redact.js";
import {
  connectionStringProblem,
  guardPoolClients,
  schemaProblem,
} from "../stores/postgres-pool.js";
import { PostgresRunStore } from "../stores/postgres-run-store.js";
import { dbosLogSink } from "./dbos-logger.js";
import { type Dbos, loadDbos } from "./load-dbos.js";
import { RecordedModel } from "./recorded-model.js";
import { StepsInFlight } from "./steps-in-flight.js";

/** Options of {@link dbosAgent}. */
export interface DbosAgentOptions {
  /**
   * The one PostgreSQL database of the durable runs: DBOS keeps its
   * workflows, steps and messages there (schema `dbosSchema`), and the
   * run store its runs, the start records of tool calls and the spent
   * approvals (schema `runStoreSchema`). `postgres://user:password@host:5432/database`.
   */
  databaseUrl: string;
  /**
   * The application's name in DBOS, and the prefix of the workflows this
   * agent registers: the same in every process of one application (a
   * process runs one durable agent).
   * @default "switchyard"
   */
  name?: string | undefined;
  /** The schema of DBOS's own tables in `databaseUrl`. @default "dbos" */
  dbosSchema?: string | undefined;
  /** The schema of the run store (a `PostgresRunStore`) in `databaseUrl`. @default "switchyard" */
  runStoreSchema?: string | undefined;
  /**
   * This process's executor id in DBOS: a process recovers, when it
   * launches, the runs that were in flight under its executor id. Give each
   * process of a fleet its own, stable across restarts (e.g. the pod's
   * name in a StatefulSet). @default `DBOS__VMID`, else `"local"`
   */
  executorId?: string | undefined;
  /**
   * The version of the code that runs the workflows: DBOS recovers a run
   * only in a process of the version that started it. Give every process
   * of one deployment the same. @default DBOS's digest of the registered workflows
   */
  applicationVersion?: string | undefined;
  /**
   * The longest a run waits for an approval answer before it reads the
   * question again: the wait ends sooner when the question expires, when
   * `wake()` is called for the run, or when the scheduled check finds the
   * question answered. @default 3_600_000 (1 hour)
   */
  approvalWaitMs?: number | undefined;
  /**
   * When the scheduled check of pending approvals runs, as a cron
   * expression with seconds (`second minute hour day month weekday`); one
   * process of the fleet runs each tick. `false`: no scheduled check
   * (answers arrive through `wake()`, or at the question's expiry).
   * @default "*\/10 * * * * *" (every 10 seconds)
   */
  checkSchedule?: string | false | undefined;
  /**
   * The most runs waiting for answers that one scheduled check reads (one
   * `peek` each); the next check the same process runs goes on
   * where it stopped.
   * @default 100
   */
  checksPerRound?: number | undefined;
  /**
   * The lease of the claim each advance holds on its run in the run store
   * (renewed every third of it): a process that dies or stalls in an advance
   * keeps its run this long before another process's advance may take it
   * (and a call it had started waits the tool's timeout more). @default 60_000
   */
  leaseMs?: number | undefined;
  /** DBOS's log level (`debug`, `info`, `warn`, `error`). @default "warn" */
  logLevel?: string | undefined;
}

/** How a durable run ended, as its workflow returns it. */
export interface DbosRunOutcome {
  runId: string;
  /** The run's final status: never `suspended` (the workflow waits) nor `running`. */
  status: Exclude<RunStateStatus, "suspended" | "running">;
  /** The final answer (the parsed value with an `output` schema), when the run completed. */
  output?: unknown;
  /** Why the run failed, on one line, secrets removed. */
  error?: string;
}

/** A durable run started with {@link DbosAgent.start}. */
export interface DbosRunHandle {
  readonly runId: string;
  /** Waits for the run to end (across processes and restarts): how it ended. */
  result(): Promise<DbosRunOutcome>;
}

/** What one advance of a run (a DBOS step) left: the run's status, and its end. */
interface Advanced {
  status: RunStateStatus;
  outcome?: DbosRunOutcome;
}

/** What a run waiting for answers waits for: nothing (go on), or a message until a deadline. */
interface Wait {
  pending: boolean;
  deadlineEpochMs: number;
}

/** The options of {@link dbosAgent}, checked, with their defaults. */
interface DbosSettings {
  name: string;
  databaseUrl: string;
  dbosSchema: string;
  approvalWaitMs: number;
  checksPerRound: number;
  checkSchedule: string | false;
  logLevel: string;
}

const wakeTopic = "switchyard.wake";

/** How soon a run whose answers could not be read (the approver's service out of reach) reads them again. */
const peekRetryMs = 30_000;

/**
 * An advance that threw (the store or a service out of reach, the run
 * still claimed by a process that died) is tried again, for about four
 * minutes: running it again is safe, since it goes on from the stored state.
 */
const advanceStep = {
  name: "advance",
  retriesAllowed: true,
  maxAttempts: 8,
  intervalSeconds: 2,
  backoffRate: 2,
};

/**
 * A Switchyard agent whose runs are DBOS workflows. Build it with
 * {@link dbosAgent}, before `launch()`.
 */
export class DbosAgent {
  /** The agent the workflows run: its model records each call in DBOS, its runs live in `runStore`. */
  readonly agent: Agent;
  /**
   * The store of the runs' states, start records and spent approvals, on
   * `databaseUrl`: used as a run store only, since DBOS is the runs' queue.
   */
  readonly runStore: PostgresRunStore;
  readonly #dbos: Dbos;
  readonly #model: RecordedModel;
  readonly #settings: DbosSettings;
  readonly #executorId: string | undefined;
  readonly #applicationVersion: string | undefined;
  readonly #runWorkflow: (
    runId: string,
    input: AgentInput,
    startedBy?: RunOptions["startedBy"],
  ) => Promise<DbosRunOutcome>;
  readonly #checkWorkflow: (scheduledAt: Date, context: unknown) => Promise<void>;
  #checkCursor: string | undefined;
  #systemPool: Pool | undefined;
  readonly #steps = new StepsInFlight();
  readonly #logger: Logger;
  /** The agent's logger for DBOS's own lines, when the agent was given one. */
  readonly #agentLogger: Logger | undefined;

  constructor(agentOptions: AgentOptions, options: DbosAgentOptions) {
    const settings = checkOptions(agentOptions, options);
    this.#settings = settings;
    this.#executorId = options.executorId;
    this.#logger = componentLogger(agentOptions.logger, "dbos");
    this.#agentLogger = agentOptions.logger ? this.#logger : undefined;
    this.#applicationVersion = options.applicationVersion;
    const dbos = loadDbos();
    this.#dbos = dbos;
    this.runStore = new PostgresRunStore({
      connectionString: settings.databaseUrl,
      schema: options.runStoreSchema ?? "switchyard",
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    });
    this.#model = new RecordedModel(dbos, agentOptions.model, `${settings.name}.model-call`);
    // DBOS is the runs' queue, but it may run one workflow in two processes
    // at once (a process that stalled while DBOS recovered its workflow
    // elsewhere): each advance claims the run in the store, as a worker
    // does, so two never act on it together (see docs/dbos.md).
    this.agent = new Agent({ ...agentOptions, model: this.#model, runStore: this.runStore });
    this.#runWorkflow = dbos.registerWorkflow(
      async (runId: string, input: AgentInput, startedBy?: RunOptions["startedBy"]) => {
        const advance = () => this.#advance(runId, input, startedBy);
        let advanced = await dbos.runStep(advance, advanceStep);
        while (advanced.outcome === undefined) {
          const wait = await dbos.runStep(() => this.#waitFor(runId), { name: "peek" });
          if (wait.pending) {
            await dbos.recv<string>(wakeTopic, { deadlineEpochMS: wait.deadlineEpochMs });
          }
          advanced = await dbos.runStep(advance, advanceStep);
        }
        return advanced.outcome;
      },
      { name: `${settings.name}.run` },
    );
    this.#checkWorkflow = dbos.registerWorkflow(
      async () => {
        await dbos.runStep(() => this.checkApprovals(), { name: "check-approvals" });
      },
      { name: `${settings.name}.check-approvals` },
    );
  }

  /**
   * Connects to the database (creating DBOS's tables and the run store's
   * when missing), recovers the runs this executor had in flight, and
   * starts the scheduled check. Call once: DBOS is one per process, and
   * so is a durable agent.
   */
  async launch(): Promise<void> {
    const { name, databaseUrl, dbosSchema, logLevel, checkSchedule } = this.#settings;
    const { Pool } = loadOptionalPeer<typeof import("pg")>("pg", "dbosAgent");
    // DBOS's own pool sets this timeout with a query racing the first one
    // (a deprecation warning with pg 8.23); a pool of ours sets it at connect.
    this.#systemPool = new Pool({
      connectionString: databaseUrl,
      max: 10,
      options: "-c idle_in_transaction_session_timeout=60000",
    });
    // A connection the server ends (a restart, pg_terminate_backend) must
    // not end the process: idle ones reach the pool's listener, and every
    // client keeps one of its own (DBOS listens only while a query runs).
    const lost = (error: Error) => this.#logger.debug({ err: error }, "a DBOS connection was lost");
    this.#systemPool.on("error", lost);
    guardPoolClients(this.#systemPool, lost);
    this.#dbos.setConfig({
      name,
      systemDatabaseUrl: databaseUrl,
      systemDatabasePool: this.#systemPool,
      systemDatabaseSchemaName: dbosSchema,
      logLevel,
      logger: dbosLogSink(this.#agentLogger, logLevel),
      ...(this.#executorId !== undefined ? { executorID: this.#executorId } : {}),
      ...(this.#applicationVersion !== undefined
        ? { applicationVersion: this.#applicationVersion }
        : {}),
    });
    // DBOS migrates its schema at launch; processes launched together on a
    // fresh database would race in its migrations (deadlocks): one at a time.
    await withLaunchLock(this.#systemPool, dbosSchema, () => this.#dbos.launch());
    if (checkSchedule !== false) {
      await this.#dbos.applySchedules([
        {
          scheduleName: `${name}.check-approvals`,
          workflowFn: this.#checkWorkflow,
          schedule: checkSchedule,
        },
      ]);
    }
  }

  /**
   * Starts a run as a DBOS workflow whose id is the run id, and resolves
   * once DBOS recorded it (the run itself goes on in the background, and
   * in another process after a crash). A run id already used resolves to
   * that run's handle: starting is idempotent by id. `startedBy` is who
   * started the run, as for `agent.run` (a person's id in the agent's
   * `approverDirectory`, or their identity on a channel): kept in the run's
   * state, so their own answer is refused (`self_approval`) unless the rule
   * allows it, in whichever process the run goes on.
   */
  async start(
    input: AgentInput,
    options: { runId?: string | undefined; startedBy?: RunOptions["startedBy"] } = {},
  ): Promise<DbosRunHandle> {
    const runId = options.runId ?? newRunId();
    const problem = findRunIdProblem(runId);
    if (problem) throw new ConfigurationError(`start(): ${problem}.`);
    const { startedBy } = options;
    const starterProblem = startedBy === undefined ? undefined : findStartedByProblem(startedBy);
    if (starterProblem) throw new ConfigurationError(`start(): startedBy ${starterProblem}.`);
    const handle = await this.#dbos.startWorkflow(this.#runWorkflow, { workflowID: runId })(
      runId,
      input,
      ...(startedBy !== undefined ? [startedBy] : []),
    );
    return { runId, result: () => handle.getResult() };
  }

  /** The handle of a run started earlier (by this process or another). */
  retrieve(runId: string): DbosRunHandle {
    const handle = this.#dbos.retrieveWorkflow<DbosRunOutcome>(runId);
    return { runId, result: () => handle.getResult() };
  }

  /**
   * Tells a run waiting for an approval answer to read it now: what an
   * application calls when it learns a person answered (a click in its
   * own UI). A run that is not waiting reads its answers at its next wait.
   */
  async wake(runId: string): Promise<void> {
    await this.#dbos.send(runId, "wake", wakeTopic);
  }

  /**
   * The scheduled check: reads the pending approvals of up to
   * `checksPerRound` runs waiting for answers (the approver's
   * `peek`, one read a run), and wakes each run with an answer.
   * Resolves with the ids of the runs woken.
   */
  async checkApprovals(): Promise<string[]> {
    return this.#steps.run(this.#dbos.workflowID, () => this.#checkApprovals());
  }

  async #checkApprovals(): Promise<string[]> {
    const page = await this.runStore.list({
      status: "suspended",
      limit: this.#settings.checksPerRound,
      ...(this.#checkCursor !== undefined ? { after: this.#checkCursor } : {}),
    });
    this.#checkCursor = page.nextCursor;
    const woken: string[] = [];
    for (const { runId } of page.runs) {
      try {
        const peek = await this.agent.peekPendingAnswers(await this.runStore.load(runId));
        if (peek.pending) continue;
        await this.wake(runId);
        woken.push(runId);
      } catch (error) {
        // The run's own wait reads it again.
        this.#logger.warn({ err: error, runId }, `could not check the answers of run ${runId}`);
      }
    }
    return woken;
  }

  /**
   * Hands the runs in flight of a process that will not come back (its
   * executor id) to the processes of the fleet: each of its pending run
   * workflows (and model calls, and scheduled checks) is queued again in DBOS, and a launched
   * process takes it and goes on from the stored state. Resolves with the
   * ids of the run workflows handed over. Should the process come back
   * after all, the run store keeps the two from both writing: each save
   * expects the revision it went on from, and a call's start record is
   * written once.
   */
  async recoverExecutor(executorId: string): Promise<string[]> {
    const { name } = this.#settings;
    const pending = await this.#dbos.listWorkflows({
      status: "PENDING",
      executorId,
      workflowName: [`${name}.run`, `${name}.model-call`, `${name}.check-approvals`],
    });
    const ids = pending.map((workflow) => workflow.workflowID);
    if (ids.length > 0) await this.#dbos.resumeWorkflows(ids);
    return pending
      .filter((workflow) => workflow.workflowName === `${name}.run`)
      .map((workflow) => workflow.workflowID);
  }

  /**
   * Stops DBOS and closes the run store, ending no run: the steps running
   * (a tool call, a read of the answers) end first, and their runs stop
   * before their next step or model call; runs waiting for answers are not
   * waited for. DBOS recovers them all at the next launch.
   */
  async shutdown(): Promise<void> {
    try {
      this.#model.stopAsking((runId) => this.#steps.park(runId));
      // Before DBOS's shutdown: the steps ending still record their outcome
      // in DBOS, and a model call still in flight is recorded as a workflow.
      await this.#steps.close((workflowId) => this.#dbos.retrieveWorkflow(workflowId).getResult());
      await this.#dbos.shutdown();
    } finally {
      await Promise.all([this.#systemPool?.end(), this.runStore.close()]);
      this.#systemPool = undefined;
    }
  }

  /**
   * One DBOS step: starts the run, or goes on with it from its last saved
   * state. A step cut by a crash is run again from the start; the run
   * store makes that safe: a call that had started is never run again,
   * and the model's recorded answers are replayed.
   */
  #advance(
    runId: string,
    input: AgentInput,
    startedBy: RunOptions["startedBy"] | undefined,
  ): Promise<Advanced> {
    return this.#steps.run(runId, () => this.#advanceNow(runId, input, startedBy));
  }

  async #advanceNow(
    runId: string,
    input: AgentInput,
    startedBy: RunOptions["startedBy"] | undefined,
  ): Promise<Advanced> {
    const stopCounting = this.#model.beginAttempt(runId);
    try {
      const saved = await this.#load(runId);
      if (saved && saved.status !== "suspended" && saved.status !== "running") {
        return { status: saved.status, outcome: outcomeOf(runId, saved.status, saved) };
      }
      // Never taken over from a live claim: an advance in another process
      // (stalled, or not yet told it lost the workflow) still holds the run.
      // Refused, the step is tried again (advanceStep) until that claim
      // lapses, and a call it had started waits out the tool's timeout.
      const result = saved
        ? await this.agent.resume(runId, { suspendOnApproval: true })
        : await this.agent.run(input, {
            runId,
            suspendOnApproval: true,
            ...(startedBy !== undefined ? { startedBy } : {}),
          });
      if (result.status === "suspended") return { status: result.status };
      return { status: result.status, outcome: outcomeOf(runId, result.status, result) };
    } finally {
      stopCounting();
    }
  }

  /** One DBOS step: whether the run's answers are all still pending, and how long to wait for one. */
  async #waitFor(runId: string): Promise<Wait> {
    const wait = await this.#steps.run(runId, () => this.#peek(runId));
    // Shutting down: on to the next advance, which stops the run before it
    // reads or writes anything, rather than a wait DBOS's shutdown cuts.
    return this.#steps.closing ? { ...wait, pending: false } : wait;
  }

  async #peek(runId: string): Promise<Wait> {
    const longest = Date.now() + this.#settings.approvalWaitMs;
    try {
      const peek = await this.agent.peekPendingAnswers(await this.runStore.load(runId));
      const expires = peek.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
      // A question past its expiry by the clock, still pending at the
      // service, is read again after the built-in worker's shortest wait.
      const soonest = Date.now() + firstRecheckAfterMs;
      return {
        pending: peek.pending,
        deadlineEpochMs: Math.max(soonest, Math.min(longest, expires)),
      };
    } catch (error) {
      this.#logger.warn(
        { err: error, runId },
        `could not read the answers run ${runId} waits for; reading them again in ${peekRetryMs / 1000} s`,
      );
      return { pending: true, deadlineEpochMs: Math.min(longest, Date.now() + peekRetryMs) };
    }
  }

  async #load(runId: string): Promise<RunState | undefined> {
    try {
      return await this.runStore.load(runId);
    } catch (error) {
      if (error instanceof RunNotFoundError) return undefined;
      throw error;
    }
  }
}

/**
 * A Switchyard agent whose runs are DBOS workflows, on one PostgreSQL
 * database: each model call is a recorded step (a run recovered after a
 * crash does not pay for it again), each tool call runs once under the run
 * store's start record, and a run waiting for an approval waits in DBOS
 * (`DBOS.recv`) until the answer arrives (`wake()`, the scheduled check) or
 * the question expires. Takes the options you would give `new Agent`,
 * without `runStore`: the runs are kept in a `PostgresRunStore` on
 * `databaseUrl`. See docs/dbos.md.
 *
 * @example
 * const durable = dbosAgent(
 *   { model, tools: [deleteCallbacks], approver },
 *   { databaseUrl: process.env.DATABASE_URL! },
 * );
 * await durable.launch();
 * const run = await durable.start("Remove the callbacks pointing at staging");
 * console.log(await run.result());
 * await durable.shutdown();
 */
export function dbosAgent(agent: AgentOptions, options: DbosAgentOptions): DbosAgent {
  return new DbosAgent(agent, options);
}

function checkOptions(agent: AgentOptions, options: DbosAgentOptions): DbosSettings {
  const problems: string[] = [];
  if (typeof agent !== "object" || agent === null || typeof agent.model?.complete !== "function") {
    problems.push("dbosAgent's first argument must be the options of an Agent, with a model.");
  } else if (agent.runStore !== undefined || agent.runQueue !== undefined) {
    problems.push(
      "dbosAgent keeps the runs in a PostgresRunStore on databaseUrl, and DBOS is their queue: leave runStore and runQueue out of the agent's options.",
    );
  }
  const urlProblem = connectionStringProblem(options?.databaseUrl, "databaseUrl");
  if (urlProblem !== undefined) problems.push(urlProblem);
  const name = options?.name ?? "switchyard";
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    problems.push(
      `name must be 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit; got ${JSON.stringify(name)}.`,
    );
  }
  for (const schemaOption of ["dbosSchema", "runStoreSchema"] as const) {
    const schema = options?.[schemaOption];
    const problem = schema === undefined ? undefined : schemaProblem(schema, schemaOption);
    if (problem !== undefined) problems.push(problem);
  }
  const approvalWaitMs = options?.approvalWaitMs ?? 3_600_000;
  if (!Number.isInteger(approvalWaitMs) || approvalWaitMs < 1) {
    problems.push("approvalWaitMs must be a whole number of milliseconds, at least 1.");
  }
  const checksPerRound = options?.checksPerRound ?? 100;
  if (!Number.isInteger(checksPerRound) || checksPerRound < 1 || checksPerRound > 1000) {
    problems.push("checksPerRound must be a whole number from 1 to 1000.");
  }
  const checkSchedule = options?.checkSchedule ?? "*/10 * * * * *";
  if (checkSchedule !== false && typeof checkSchedule !== "string") {
    problems.push('checkSchedule must be a cron expression such as "*/10 * * * * *", or false.');
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return {
    name,
    dbosSchema: options.dbosSchema ?? "dbos",
    approvalWaitMs,
    checksPerRound,
    checkSchedule,
    databaseUrl: options.databaseUrl,
    logLevel: options.logLevel ?? "warn",
  };
}

/**
 * Runs `body` (DBOS's launch, which migrates its schema) under a
 * PostgreSQL advisory lock named after the DBOS schema, so processes
 * launched together on a fresh database migrate one at a time. The lock
 * is a session's: it ends with the connection, should the process die.
 */
async function withLaunchLock<T>(pool: Pool, schema: string, body: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const lost = () => {};
  client.on("error", lost);
  const key = `switchyard dbos launch ${schema}`;
  try {
    // Tried, not waited for in one statement: a statement waiting holds a
    // snapshot, which DBOS's migrations (indexes built concurrently) wait on.
    for (;;) {
      const { rows } = await client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock(hashtext($1)) AS locked",
        [key],
      );
      if (rows[0]?.locked) break;
      await sleep(100);
    }
    try {
      return await body();
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [key]).catch(() => {});
    }
  } finally {
    client.off("error", lost);
    client.release();
  }
}

/** How the run ended, for the workflow's result: plain data, secrets already removed by the agent. */
function outcomeOf(
  runId: string,
  status: RunStateStatus,
  ended: { output?: unknown; error?: RunResult["error"] | RunState["error"] },
): DbosRunOutcome {
  const { error } = ended;
  const described =
    error === undefined
      ? undefined
      : error instanceof Error
        ? describeThrown(error)
        : `${error.name}: ${error.message}`;
  return {
    runId,
    status: status as DbosRunOutcome["status"],
    ...(status === "completed" && ended.output !== undefined ? { output: ended.output } : {}),
    ...(described !== undefined ? { error: redactText(described.replace(/\s+/g, " ")) } : {}),
  };
}
