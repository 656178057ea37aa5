import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Pool, PoolClient, QueryResultRow } from "pg";
import { describeThrown } from "../agent/describe-thrown.js";
import {
  claimOfAnotherRun,
  RunConflictError,
  RunNotFoundError,
  RunNotResumableError,
  RunStoreError,
  unsealedInSealedStore,
} from "../agent/durable/durable-errors.js";
import { parseRunState } from "../agent/durable/parse-run-state.js";
import { findRunIdProblem } from "../agent/durable/run-id.js";
import { readRunListOptions, runListCursor } from "../agent/durable/run-list-page.js";
import {
  checkChecksPerSecond,
  checkClaimDueMax,
  type RunClaim,
  type RunClaimDueOptions,
  type RunClaimOptions,
  type RunDueWaitOptions,
  type RunQueue,
  type RunReleaseOptions,
  type RunSchedule,
} from "../agent/durable/run-queue.js";
import type { RunState } from "../agent/durable/run-state.js";
import {
  type CallStart,
  type CallStartOutcome,
  checkInteractionBinding,
  type InteractionBinding,
  type InteractionBindingOutcome,
  type RunDeleteOptions,
  type RunList,
  type RunListOptions,
  type RunSaveOptions,
  type RunStore,
  type RunSummary,
  summarizeRunState,
} from "../agent/durable/run-store.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { checkLeaseMs, leaseMsProblem } from "../internal/check-lease-ms.js";
import { DueNotices } from "../internal/due-notices.js";
import type { RetrySchedule } from "../internal/http/retry-policy.js";
import { withRetries } from "../internal/http/with-retries.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { checkAnchorCommand } from "./anchor-audit-head.js";
import { checkAuditKey } from "./audit-chain.js";
import { checkAuditSigningKey } from "./audit-signing.js";
import {
  attachClaimedState,
  endClaimBySave,
  forgetClaimedState,
  isClaimEndedBySave,
} from "./claimed-states.js";
import { isTransientPostgresError } from "./is-transient-postgres-error.js";
import { PostgresAuditLog, type PostgresAuditLogOptions } from "./postgres-audit-log.js";
import { dueChannel, migrate, quoteIdentifier } from "./postgres-migrations.js";
import {
  checkPostgresPool,
  guardPoolClients,
  openPostgresPool,
  withPoolClient,
} from "./postgres-pool.js";
import { RenewingClaims } from "./renewing-claims.js";

/** Options of {@link PostgresRunStore}: a pool of yours, or a connection string. */
export interface PostgresRunStoreOptions {
  /**
   * A `pg.Pool` of yours; the store never ends it. Give this or
   * `connectionString`.
   */
  pool?: Pool | undefined;
  /**
   * `postgres://user:password@host:5432/database`; the store makes a pool
   * of its own, ended by `close()`. Give this or `pool`.
   */
  connectionString?: string | undefined;
  /** Connections in the store's own pool (with `connectionString`). @default 10 */
  poolSize?: number | undefined;
  /**
   * The schema holding the store's tables, created and migrated on first
   * use: lower-case letters, digits and `_`. Several stores (agents,
   * environments) can share a database under different schemas.
   * @default "switchyard"
   */
  schema?: string | undefined;
  /** How long a claim lasts unless renewed, when `claim()` is not told. @default 60_000 */
  leaseMs?: number | undefined;
  /**
   * How a statement that failed for a passing reason (a lost connection, a
   * server restart, `pg_terminate_backend`, a serialization failure) is
   * sent again: up to `maxRetries` times, waiting from `initialRetryDelayMs`
   * doubling to `maxRetryDelayMs`, with jitter. Only an outage longer than
   * that reaches the caller (a `RunStoreError`).
   * @default { maxRetries: 10, initialRetryDelayMs: 100, maxRetryDelayMs: 3_000 } (about 20 s)
   */
  retry?: PostgresRetryOptions | undefined;
  /** Where retries are reported (a pino logger; `warn` per retry). @default silent */
  logger?: Logger | undefined;
  /**
   * The key of the store's audit log ({@link PostgresRunStore.auditLog}):
   * its hashes and head are HMAC-SHA256 under it (at least 32 characters).
   * @default none (plain SHA-256: shows accidental damage, not forgery)
   */
  auditKey?: string | undefined;
  /** The Ed25519 key that signs the store's audit log (see `PostgresAuditLogOptions.auditSigningKey`). @default none */
  auditSigningKey?: PostgresAuditLogOptions["auditSigningKey"];
  /** The command each head of the store's audit log is anchored with (see `PostgresAuditLogOptions.anchorCommand`). @default none */
  auditAnchorCommand?: string | undefined;
}

/** Options of {@link PostgresRunStoreOptions.retry}. */
export interface PostgresRetryOptions {
  /** Attempts after the first. @default 10 */
  maxRetries?: number | undefined;
  /** The first wait, in milliseconds. @default 100 */
  initialRetryDelayMs?: number | undefined;
  /** The longest wait, in milliseconds. @default 3_000 */
  maxRetryDelayMs?: number | undefined;
}

const defaultRetry: RetrySchedule = {
  maxRetries: 10,
  initialRetryDelayMs: 100,
  maxRetryDelayMs: 3_000,
};

/** The server's time, to the millisecond (what a listing's cursor holds). */
const serverNow = "date_trunc('milliseconds', now())";

/** A timestamp column as the ISO text a summary carries. */
function isoText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * SQL: the row's claim expired and is not being renewed by a holder in this
 * process (`tokens`, the parameter holding their lease tokens): a claim
 * another may take. `row` qualifies the columns (`runs.`) where the
 * statement needs it.
 */
function lapsedLease(tokens: string, row = ""): string {
  return `(${row}lease_expires_at <= now() AND ${row}lease_token <> ALL(${tokens}::bigint[]))`;
}

/**
 * SQL SET clauses of a claim statement: the previous holder, when the run
 * had one, may act until its lease ends (`acted_until`), and the revision the
 * run is claimed at (a release after a write moves `acted_until` too).
 * `ownWrite`: SQL true when the row is this statement's own claim (sent again
 * after a lost answer), which is no previous holder.
 */
function heldUntil(row: string, ownWrite = "false"): string {
  return `acted_until = CASE WHEN ${row}lease_owner IS NOT NULL AND NOT ${ownWrite}
                          THEN GREATEST(${row}acted_until, ${row}lease_expires_at)
                          ELSE ${row}acted_until END,
         claimed_revision = ${row}revision`;
}

/** SQL of the claim's `RunClaim.sincePreviousHolderMs`, from the row as the statement left it. */
function sinceHeld(row: string): string {
  return `round(extract(epoch FROM now() - ${row}acted_until) * 1000) AS since_held_ms`;
}

/** Statuses a worker may find due: waiting for answers, or abandoned mid-run. */
const dueStatuses = "('suspended', 'running')";

/**
 * A run store in PostgreSQL, shared by any number of processes on any
 * number of machines (`docs/scaling.md`). It creates and migrates its own
 * tables in `schema` on first use (versioned migrations under an advisory
 * lock, safe when many processes start at once).
 *
 * Every guarantee of {@link RunStore} holds across machines: saves are
 * compare-and-set on the run's revision; claims are leases that expire
 * unless renewed, with a fencing token checked by every save (a stalled
 * worker cannot write after another took the run; a holder whose lease
 * ran out while the database was unreachable renews and saves under the
 * same token, unless another process took the run meanwhile, and its own
 * process never takes the run from it while it keeps renewing); `claimNext` takes due
 * runs with `FOR UPDATE SKIP LOCKED`, and recovers runs whose holder died;
 * execution records and used approvals are rows with unique keys; listing
 * reads summaries only, a page at a time on an index. Times are the
 * database server's, so machine clocks need not agree.
 *
 * @example
 * import { PostgresRunStore } from "switchyard-agents/postgres";
 * const runStore = new PostgresRunStore({ connectionString: process.env.SWITCHYARD_DATABASE_URL });
 * const agent = new Agent({ model, tools, approver, runStore, auditLog: runStore.auditLog });
 * // ...
 * await runStore.close();
 */
export class PostgresRunStore implements RunStore, RunQueue {
  /** The schema holding the tables. */
  readonly schema: string;
  /**
   * The audit log of approval decisions in this store's schema and pool
   * (keyed with `auditKey`): give it to the agent as `auditLog`, so every
   * worker appends to one chain.
   */
  readonly auditLog: PostgresAuditLog;
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #table: string;
  readonly #sequence: string;
  readonly #sealedTable: string;
  readonly #budgetTable: string;
  /** Seen a sealed state saved here: the marker is there for good. */
  #knownSealed = false;
  readonly #leaseMs: number;
  readonly #retry: RetrySchedule;
  readonly #logger: Logger;
  #ready: Promise<void> | undefined;
  readonly #notices = new DueNotices();
  /** Claims this process's holders are renewing: never taken from them here, even once expired. */
  readonly #renewing = new RenewingClaims();
  /** The connection held to LISTEN for due runs, once a worker waits. */
  #listener: Promise<ListeningClient | undefined> | undefined;
  #roundTrips = 0;

  constructor(options: PostgresRunStoreOptions) {
    const problems: string[] = [];
    const schema = checkPostgresPool(options, "PostgresRunStore", problems);
    const leaseMs = options?.leaseMs ?? 60_000;
    const leaseProblem = leaseMsProblem(leaseMs);
    if (leaseProblem !== undefined) problems.push(leaseProblem);
    const poolSize = options?.poolSize ?? 10;
    if (!Number.isInteger(poolSize) || poolSize < 1) {
      problems.push("poolSize must be a whole number, at least 1.");
    }
    const retry = { ...defaultRetry };
    for (const name of Object.keys(defaultRetry) as Array<keyof RetrySchedule>) {
      const given = options?.retry?.[name];
      if (given === undefined) continue;
      if (!Number.isInteger(given) || given < 0) {
        problems.push(`retry.${name} must be a whole number, at least 0.`);
      } else retry[name] = given;
    }
    if (problems.length > 0) throw new ConfigurationError(problems);
    const auditKey = checkAuditKey(options.auditKey, "PostgresRunStore");
    // Checked before the pool is made or touched: a bad key leaves nothing behind.
    const auditSigningKey = checkAuditSigningKey(options.auditSigningKey, "PostgresRunStore");
    const auditAnchorCommand = checkAnchorCommand(options.auditAnchorCommand, "PostgresRunStore");
    this.#retry = retry;
    this.#logger = componentLogger(options.logger, "run-store");
    this.schema = schema;
    this.#table = `${quoteIdentifier(schema)}.runs`;
    this.#sequence = `${quoteIdentifier(schema)}.lease_tokens`;
    this.#sealedTable = `${quoteIdentifier(schema)}.sealed_states`;
    this.#budgetTable = `${quoteIdentifier(schema)}.check_budget_shards`;
    this.#leaseMs = leaseMs;
    const opened = openPostgresPool(options, "PostgresRunStore", { max: poolSize });
    this.#ownsPool = opened.owned;
    this.#pool = opened.pool;
    // An idle connection the server drops (a restart, pg_terminate_backend)
    // must not crash the process: the pool discards it, the next statement
    // opens another, and a statement in flight is retried.
    this.#pool.on("error", this.#onIdleError);
    // And every client keeps a listener of its own for as long as it lives:
    // pg emits "error" on a client with no query in flight (a session ended
    // by pg_terminate_backend or a restart between two statements, or as
    // the pool hands it over), which would otherwise end the process.
    guardPoolClients(this.#pool, this.#onClientError);
    // The log's tables are the store's: migrated once, by the store.
    this.auditLog = new PostgresAuditLog(
      {
        pool: this.#pool,
        schema,
        auditKey,
        auditSigningKey: auditSigningKey?.privateKey,
        anchorCommand: auditAnchorCommand,
        logger: options.logger,
      },
      () => this.migrate(),
    );
  }

  readonly #onClientError = (error: Error): void => {
    this.#logger.debug({ err: error }, "a run store connection was lost");
  };

  readonly #onIdleError = (error: Error): void => {
    this.#logger.warn({ err: error }, "an idle run store connection was lost; it is replaced");
  };

  /**
   * Creates or migrates the tables now (otherwise done on first use).
   * Rejects with `RunStoreError` when the database cannot be reached or the
   * schema was migrated by a newer Switchyard.
   */
  migrate(): Promise<void> {
    this.#ready ??= this.#retrying("migrate", undefined, () =>
      this.#withClient((client) => migrate(client, this.schema)),
    ).catch((error: unknown) => {
      this.#ready = undefined;
      throw new RunStoreError(
        {
          operation: "migrate",
          message: `Could not prepare the run store's tables in schema "${this.schema}": ${describeThrown(error)}`,
        },
        { cause: error },
      );
    });
    return this.#ready;
  }

  /**
   * Runs `body` on a client of its own ({@link withPoolClient}); a client
   * whose statement failed for a passing reason is destroyed, not put back.
   */
  #withClient<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    return withPoolClient(this.#pool, body, {
      discardAfter: (error) => error instanceof Error && isTransientPostgresError(error),
      onLost: (error) =>
        this.#logger.warn({ err: error }, "a run store connection was lost during a statement"),
    });
  }

  /**
   * Statements this store has sent to the database so far (each retry
   * counts; the migration's and the listening connection's are not): what
   * a workload costs in round trips, as the bench reports it.
   */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  /**
   * Makes a suspended run that no live claim holds due now, ahead of every
   * run due earlier (its answer is known: it goes first, even while a
   * budget of checks holds the others back); the database announces it to
   * idle workers (`LISTEN switchyard_due`), which take it at once. See
   * {@link RunQueue.wake}.
   */
  async wake(runId: string): Promise<boolean> {
    checkRunId(runId);
    const { rowCount } = await this.#query(
      "wake",
      runId,
      `UPDATE ${this.#table} SET next_check_at = to_timestamp(0)
        WHERE run_id = $1 AND status = 'suspended' AND state IS NOT NULL
          AND (lease_owner IS NULL OR lease_expires_at <= now())`,
      [runId],
    );
    return rowCount === 1;
  }

  /**
   * Waits for the database to announce a due run of this schema (one
   * connection of the pool is held to LISTEN from the first wait until
   * `close`), at most `timeoutMs`. A lost listening connection is opened
   * again on the next wait; meanwhile the wait runs its time out. See
   * {@link RunQueue.waitForDue}.
   */
  async waitForDue(options: RunDueWaitOptions): Promise<"notified" | "timeout" | "aborted"> {
    await this.#listen();
    return this.#notices.wait(options.timeoutMs, options.signal);
  }

  #listen(): Promise<ListeningClient | undefined> {
    this.#listener ??= (async () => {
      await this.migrate();
      const client = await this.#pool.connect();
      // pg may emit "error" more than once for one lost connection (a
      // server restart): the client goes back to the pool once.
      let released = false;
      const listening: ListeningClient = {
        client,
        release: (error) => {
          if (released) return;
          released = true;
          client.removeAllListeners("notification");
          client.release(error ?? true);
        },
      };
      client.on("notification", (message) => {
        if (message.channel === dueChannel && message.payload?.startsWith(`${this.schema} `)) {
          this.#notices.notify();
        }
      });
      client.on("error", (error) => {
        if (!released) {
          this.#logger.warn({ err: error }, "the connection listening for due runs was lost");
          this.#listener = undefined;
        }
        listening.release(error);
      });
      try {
        await client.query(`LISTEN ${dueChannel}`);
      } catch (error) {
        listening.release(error as Error);
        throw error;
      }
      // Runs made due while nobody listened are looked for once.
      this.#notices.notify();
      return listening;
    })().catch((error: unknown) => {
      this.#logger.warn({ err: error }, "could not listen for due runs; polling instead");
      this.#listener = undefined;
      return undefined;
    });
    return this.#listener;
  }

  /** Ends the store's own pool (made from `connectionString`); a pool given is left open. */
  async close(): Promise<void> {
    const listener = await this.#listener;
    this.#listener = undefined;
    listener?.release();
    // The store's own pool keeps its listener: a connection still closing
    // when the server goes away must not crash the process either.
    if (this.#ownsPool) await this.#pool.end();
    else this.#pool.off("error", this.#onIdleError);
  }

  async save(state: RunState, options: RunSaveOptions = {}): Promise<void> {
    const checked = parseRunState(state, "the state to save");
    forgetClaimedState(options.claim);
    await this.#rememberSealed(checked);
    const save = this.#saveStatement(checked, options, randomUUID());
    const { finishedCall } = options;
    const saved = () => {
      if (options.release && options.claim) endClaimBySave(options.claim);
    };
    if (!finishedCall) {
      const { rowCount } = await this.#query("save", checked.runId, save.text, save.values);
      if (rowCount === 1) return saved();
      throw await this.#refusal(checked, options);
    }
    // The call's end is recorded in the same statement, whether or not the save holds.
    const { rows } = await this.#query<{ saved: boolean }>(
      "save",
      checked.runId,
      `WITH saved AS (${save.text} RETURNING 1),
       finished AS (
         UPDATE ${quoteIdentifier(this.schema)}.tool_executions
            SET finished_at = now(), content = $11
          WHERE run_id = $1 AND tool_call_id = $10)
       SELECT EXISTS (SELECT 1 FROM saved) AS saved`,
      [...save.values, finishedCall.toolCallId, finishedCall.content],
    );
    if (rows[0]?.saved) return saved();
    throw await this.#refusal(checked, options);
  }

  /** Records, once, that this store's states are sealed (a sealed state is being saved). */
  async #rememberSealed(checked: RunState): Promise<void> {
    if (checked.seal === undefined || this.#knownSealed) return;
    await this.#query(
      "save",
      checked.runId,
      `INSERT INTO ${this.#sealedTable} DEFAULT VALUES ON CONFLICT DO NOTHING`,
      [],
    );
    this.#knownSealed = true;
  }

  /** Why a save changed nothing: an unsealed state in a sealed store, or a conflict. */
  async #refusal(checked: RunState, options: RunSaveOptions): Promise<Error> {
    if (checked.seal === undefined) {
      const { rowCount } = await this.#query(
        "save",
        checked.runId,
        `SELECT 1 FROM ${this.#sealedTable}`,
        [],
      );
      if (rowCount > 0)
        return unsealedInSealedStore(checked.runId, `schema "${this.schema}"`, "saved");
    }
    return this.#conflict(checked.runId, options);
  }

  /**
   * The statement of a compare-and-set save fenced by the claim; it changes
   * one row or none. `writeId` names the write, so the same statement sent
   * again after a lost answer finds its own write.
   */
  #saveStatement(
    checked: RunState,
    options: RunSaveOptions,
    writeId: string,
    condition = "true",
  ): { text: string; values: unknown[]; fenced: string } {
    const { runId } = checked;
    checkRunId(runId);
    const { expectedRevision, claim } = options;
    if (claim && claim.runId !== runId) throw claimOfAnotherRun("save", runId, claim);
    // Only a claim can be released with the save (a save without one is not fenced).
    const release = options.release === true && claim !== undefined;
    const values = [
      runId,
      checked.status,
      JSON.stringify(checked),
      JSON.stringify(summarizeRunState(checked)),
      checked.revision,
      writeId,
      expectedRevision ?? null,
      claim?.token ?? null,
      checked.seal !== undefined,
    ];
    // Times are the server's: a worker whose clock is off cannot make a run
    // look older or newer than it is (listing, pruning, due checks). A run
    // under a claim is due when the claim expires, or now if it has (a
    // holder saving after its lease ran out): never left without a check.
    const set = `status = $2::text, state = $3::jsonb, summary = $4::jsonb, revision = $5::bigint,
      write_id = $6::text,
      updated_at = ${serverNow},
      created_at = CASE WHEN runs.state IS NULL THEN ${serverNow} ELSE runs.created_at END,
      next_check_at = CASE
        WHEN $2::text NOT IN ${dueStatuses} THEN NULL
        ${release ? "" : "WHEN runs.lease_owner IS NOT NULL THEN GREATEST(runs.lease_expires_at, now())"}
        WHEN $2::text = 'suspended' THEN now()
        ELSE NULL END${release ? ", lease_owner = NULL, lease_expires_at = NULL, attempts = 0, last_error = NULL" : ""}`;
    // A statement sent again after a lost answer finds its own write (write_id) and succeeds.
    // An unsealed state is never written once the store holds sealed ones.
    const sealedOnly = `($9::boolean OR NOT EXISTS (SELECT 1 FROM ${this.#sealedTable}))`;
    const fence = `(runs.write_id = $6::text OR (
        ($7::bigint IS NULL OR runs.revision = $7)
        AND ($8::bigint IS NULL OR (runs.lease_token = $8 AND runs.lease_owner IS NOT NULL))))
      AND ${sealedOnly}`;
    // A run not stored yet can be created only by a save expecting nothing (revision 0, no claim).
    const mayCreate = (expectedRevision ?? 0) === 0 && !claim;
    const text = mayCreate
      ? `INSERT INTO ${this.#table} AS runs
           (run_id, status, state, summary, revision, write_id, updated_at, created_at, next_check_at)
         SELECT $1, $2, $3, $4, $5, $6, ${serverNow}, ${serverNow},
                CASE WHEN $2::text = 'suspended' THEN now() END
          WHERE ${sealedOnly} AND ${condition}
         ON CONFLICT (run_id) DO UPDATE SET ${set} WHERE ${fence} AND ${condition}`
      : `UPDATE ${this.#table} AS runs SET ${set} WHERE run_id = $1 AND ${fence} AND ${condition}`;
    // Whether the fence held, as the statement's snapshot saw the row.
    const held = `EXISTS (SELECT 1 FROM ${this.#table} AS runs WHERE run_id = $1 AND ${fence})`;
    const fenced = mayCreate
      ? `(${held} OR (${sealedOnly} AND NOT EXISTS (SELECT 1 FROM ${this.#table} WHERE run_id = $1)))`
      : held;
    return { text, values, fenced };
  }

  /**
   * One statement, so one round trip and one atomic write: the state saved
   * as `save` saves it (fenced by the claim and the revision) unless the
   * approval was spent or the call started by another write, then the
   * approval's row and the call's execution row, each depending on the
   * save. A spend racing this one (not yet visible when the statement
   * began) makes its insert fail on the key, which undoes the whole
   * statement; it is then sent again and sees the spend. One write id
   * names all three rows, so the statement sent again after a lost answer
   * finds its own write and answers `started`. See {@link RunStore.startCall}.
   */
  async startCall(
    state: RunState,
    start: CallStart,
    options: RunSaveOptions = {},
  ): Promise<CallStartOutcome> {
    const checked = parseRunState(state, "the state to save");
    const { runId } = checked;
    const writeId = randomUUID();
    forgetClaimedState(options.claim);
    await this.#rememberSealed(checked);
    const statement = this.#startStatement(checked, start, options, writeId);
    let row: StartRow | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        ({
          rows: [row],
        } = await this.#query<StartRow>("startCall", runId, statement.text, statement.values));
        break;
      } catch (error) {
        // A spend of the same approval committed while this statement ran:
        // nothing was written; sent again, the statement sees it.
        if (attempt < 3 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
    if (row?.saved) return { outcome: "started" };
    if (row?.fenced && row.used) {
      return {
        outcome: "already_used",
        ...(row.used.runId ? { runId: row.used.runId } : {}),
        ...(row.used.toolCallId ? { toolCallId: row.used.toolCallId } : {}),
      };
    }
    if (row?.fenced && row.earlier) {
      return {
        outcome: "already_started",
        toolCallId: row.earlier.toolCallId,
        ...(typeof row.earlier.content === "string" ? { content: row.earlier.content } : {}),
      };
    }
    throw await this.#refusal(checked, options);
  }

  /** The one statement of `startCall`; see there. */
  #startStatement(
    checked: RunState,
    start: CallStart,
    options: RunSaveOptions,
    writeId: string,
  ): { text: string; values: unknown[] } {
    const schema = quoteIdentifier(this.schema);
    const { approval } = start;
    const parameters = [start.toolCallId, start.fingerprint, start.contentKey, approval ?? null];
    // $10 call id, $11 fingerprint, $12 content key, $13 approval id.
    // Under a claim, the call runs only while its lease is live by the
    // server's clock: a holder whose lease lapsed (stalled, or cut off from
    // the database) may have been replaced, or soon be.
    const blocked = `NOT EXISTS (SELECT 1 FROM used_before) AND NOT EXISTS (SELECT 1 FROM earlier)${
      options.claim ? " AND runs.lease_expires_at > now()" : ""
    }`;
    const save = this.#saveStatement(checked, { ...options, release: false }, writeId, blocked);
    const text = `WITH earlier AS (
         SELECT tool_call_id, content FROM ${schema}.tool_executions
          WHERE run_id = $1 AND (tool_call_id = $10 OR content_key = $12)
            AND write_id IS DISTINCT FROM $6
          ORDER BY tool_call_id = $10 DESC LIMIT 1),
       used_before AS (
         SELECT run_id, tool_call_id FROM ${schema}.spent_approvals
          WHERE approval_id = $13 AND write_id IS DISTINCT FROM $6),
       saved AS (${save.text} RETURNING 1),
       spent AS (
         INSERT INTO ${schema}.spent_approvals
           (approval_id, fingerprint, run_id, tool_call_id, write_id)
         SELECT $13, $11, $1, $10, $6 FROM saved
          WHERE $13::text IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM ${schema}.spent_approvals
             WHERE approval_id = $13 AND write_id = $6)
         RETURNING 1),
       started AS (
         INSERT INTO ${schema}.tool_executions
           (run_id, tool_call_id, fingerprint, content_key, write_id)
         SELECT $1, $10, $11, $12, $6 FROM saved
         ON CONFLICT (run_id, tool_call_id) DO NOTHING
         RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM saved) AS saved,
              ${save.fenced} AS fenced,
              (SELECT json_build_object('runId', run_id, 'toolCallId', tool_call_id)
                 FROM used_before LIMIT 1) AS used,
              (SELECT json_build_object('toolCallId', tool_call_id, 'content', content)
                 FROM earlier) AS earlier`;
    return { text, values: [...save.values, ...parameters] };
  }

  /** Says why a save was refused: the claim no longer current, or another revision stored. */
  async #conflict(runId: string, options: RunSaveOptions): Promise<RunConflictError> {
    const { rows } = await this.#query<{
      revision: string;
      token: string;
      held: boolean;
      lapsed: boolean;
    }>(
      "save",
      runId,
      `SELECT revision, lease_token AS token, lease_owner IS NOT NULL AS held,
              lease_expires_at <= now() AS lapsed
         FROM ${this.#table} WHERE run_id = $1`,
      [runId],
    );
    const row = rows[0];
    const { claim, expectedRevision } = options;
    if (claim && (!row || Number(row.token) !== claim.token || !row.held)) {
      return new RunConflictError({
        operation: "save",
        runId,
        reason: "claim",
        message: `Run "${runId}" was not saved: this process's claim on it is no longer current (${row && Number(row.token) !== claim.token ? "another process took the run over" : "it was released"}). Nothing was written; the run stops here.`,
      });
    }
    const sameRevision =
      expectedRevision === undefined || Number(row?.revision ?? 0) === expectedRevision;
    if (claim && row?.lapsed && sameRevision) {
      return new RunConflictError({
        operation: "startCall",
        runId,
        reason: "claim",
        message: `Run "${runId}" did not start its call: this process's claim on it lapsed (its lease ran out by the database's clock without a renewal), so another process may take the run over. Nothing was written and nothing run; the run stops here.`,
      });
    }
    return new RunConflictError({
      operation: "save",
      runId,
      reason: "revision",
      message: `Run "${runId}" was not saved: the store holds revision ${row ? Number(row.revision) : 0}, not ${expectedRevision}; another process saved it since this one read it. Nothing was written; the run stops here.`,
    });
  }

  async load(runId: string): Promise<RunState> {
    checkRunId(runId);
    const { rows } = await this.#query<{ state: unknown; sealed_store: boolean }>(
      "load",
      runId,
      `SELECT state, EXISTS (SELECT 1 FROM ${this.#sealedTable}) AS sealed_store
         FROM ${this.#table} WHERE run_id = $1 AND state IS NOT NULL`,
      [runId],
    );
    const row = rows[0];
    if (!row) throw new RunNotFoundError(runId, `the run store (schema "${this.schema}")`);
    const state = parseRunState(row.state, `run "${runId}" in schema "${this.schema}"`);
    if (row.sealed_store && state.seal === undefined) {
      throw unsealedInSealedStore(runId, `schema "${this.schema}"`, "loaded");
    }
    return state;
  }

  /**
   * One page of summaries, on the `(status, updated_at, run_id)` index; see
   * {@link RunStore.list}. Their `createdAt` and `updatedAt` are the
   * server's times of the first and last save.
   */
  async list(options: RunListOptions = {}): Promise<RunList> {
    const page = readRunListOptions(options);
    const conditions = ["state IS NOT NULL"];
    const values: unknown[] = [];
    if (page.statuses) {
      values.push(page.statuses);
      conditions.push(`status = ANY($${values.length})`);
    }
    if (page.runIdPrefix !== undefined) {
      // A fixed prefix: the run_id text_pattern_ops index finds the runs without a scan.
      values.push(`${page.runIdPrefix.replace(/[\\%_]/g, "\\$&")}%`);
      conditions.push(`run_id LIKE $${values.length}`);
    }
    if (page.olderThanMs !== undefined) {
      values.push(page.olderThanMs);
      conditions.push(`updated_at < now() - $${values.length} * interval '1 millisecond'`);
    }
    if (page.after) {
      values.push(page.after.updatedAt, page.after.runId);
      const [time, id] = [`$${values.length - 1}::timestamptz`, `$${values.length}`];
      conditions.push(`(updated_at < ${time} OR (updated_at = ${time} AND run_id > ${id}))`);
    }
    values.push(page.limit + 1);
    const { rows } = await this.#query<{ summary: RunSummary }>(
      "list",
      undefined,
      `SELECT summary || jsonb_build_object('createdAt', ${isoText("created_at")},
                                            'updatedAt', ${isoText("updated_at")}) AS summary
         FROM ${this.#table} WHERE ${conditions.join(" AND ")}
        ORDER BY updated_at DESC, run_id LIMIT $${values.length}`,
      values,
    );
    const runs = rows.slice(0, page.limit).map((row) => row.summary);
    const last = runs.at(-1);
    return {
      runs,
      unreadable: [],
      ...(rows.length > page.limit && last ? { nextCursor: runListCursor(last) } : {}),
    };
  }

  /**
   * Removes the run unless another process holds a live claim on it
   * (`RunNotResumableError`, status `claimed`); see {@link RunStore.delete}.
   */
  async delete(runId: string, options: RunDeleteOptions = {}): Promise<boolean> {
    checkRunId(runId);
    const { claim } = options;
    if (claim && claim.runId !== runId) throw claimOfAnotherRun("delete", runId, claim);
    const { rows } = await this.#query<{ deleted: boolean }>(
      "delete",
      runId,
      // Takes the claim and deletes in one statement: a run held by a live
      // claim (not the caller's) is left, and said so.
      `WITH gone AS (
         DELETE FROM ${this.#table} WHERE run_id = $1 AND state IS NOT NULL
            AND (lease_owner IS NULL OR lease_token = $2
                 OR ${lapsedLease("$3")})
         RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM gone) AS deleted`,
      () => [runId, claim?.token ?? null, this.#renewing.tokens()],
    );
    if (rows[0]?.deleted) return true;
    await this.#refuseIfHeld(runId, "deleted");
    return false;
  }

  /**
   * Throws `RunNotResumableError` (status `claimed`) naming the holder, when
   * another process holds the run, or a holder in this process is renewing
   * its claim.
   */
  async #refuseIfHeld(runId: string, what: string): Promise<void> {
    const { rows } = await this.#query<{ owner: string; until: Date; live: boolean }>(
      "claim",
      runId,
      `SELECT lease_owner AS owner, lease_expires_at AS until, lease_expires_at > now() AS live
         FROM ${this.#table}
        WHERE run_id = $1 AND lease_owner IS NOT NULL
          AND NOT ${lapsedLease("$2")}`,
      () => [runId, this.#renewing.tokens()],
    );
    const holder = rows[0];
    if (!holder) return;
    const until = holder.live
      ? `whose claim expires at ${holder.until.toISOString()} unless renewed`
      : "in this process, renewing its claim";
    throw new RunNotResumableError(
      runId,
      "claimed",
      `Run "${runId}" was not ${what}: it is being worked on by ${holder.owner}, ${until}. Wait for it to finish (a dead holder's claim expires on its own), or resume with { takeOver: true } if you know it is gone.`,
      { takeOver: true },
    );
  }

  /**
   * Takes a lease on the run (a row is reserved for a run not saved yet);
   * see {@link RunQueue.claim}. Refused while another's lease is live,
   * unless `takeOver`.
   */
  async claim(runId: string, options: RunClaimOptions = {}): Promise<RunClaim> {
    checkRunId(runId);
    const owner = ownerOf(options);
    const leaseMs = this.#leaseOf(options);
    const writeId = randomUUID();
    const askedAt = Date.now();
    const { rows } = await this.#query<ClaimRow>(
      "claim",
      runId,
      // "previous" reads the row as the statement found it (a CTE that locked
      // it would see nothing once this statement updated the row).
      `WITH previous AS (
         SELECT status, lease_owner FROM ${this.#table} WHERE run_id = $1)
       INSERT INTO ${this.#table} AS runs
         (run_id, status, lease_owner, lease_token, lease_expires_at, write_id)
       VALUES ($1, 'running', $2, nextval('${this.#sequence}'),
               now() + $3 * interval '1 millisecond', $5)
       ON CONFLICT (run_id) DO UPDATE SET
         lease_owner = EXCLUDED.lease_owner,
         lease_token = EXCLUDED.lease_token,
         lease_expires_at = EXCLUDED.lease_expires_at,
         write_id = EXCLUDED.write_id,
         next_check_at = CASE WHEN runs.status IN ${dueStatuses}
                              THEN EXCLUDED.lease_expires_at ELSE runs.next_check_at END,
         ${heldUntil("runs.", "runs.write_id IS NOT DISTINCT FROM EXCLUDED.write_id")}
       WHERE runs.lease_owner IS NULL OR $4 OR runs.write_id = EXCLUDED.write_id
          OR ${lapsedLease("$6", "runs.")}
       RETURNING runs.run_id, runs.lease_token AS token, runs.attempts, ${sinceHeld("runs.")},
         COALESCE((SELECT lease_owner IS NOT NULL OR (status = 'running')
                     FROM previous), false) AS recovered,
         runs.state, EXISTS (SELECT 1 FROM ${this.#sealedTable}) AS sealed_store`,
      () => [runId, owner, leaseMs, options.takeOver === true, writeId, this.#renewing.tokens()],
    );
    const row = rows[0];
    if (row) return this.#claimFrom(row, owner, leaseMs, askedAt);
    await this.#refuseIfHeld(runId, "claimed");
    // Released between the two statements: try again.
    return this.claim(runId, options);
  }

  /**
   * Takes the due run checked longest ago with `FOR UPDATE SKIP LOCKED`,
   * so workers never wait on each other; see {@link RunQueue.claimNext}.
   */
  async claimNext(options: RunClaimOptions = {}): Promise<RunClaim | undefined> {
    const [claim] = await this.#claimDue("claimNext", options, 1);
    return claim;
  }

  /**
   * Takes up to `max` due runs in one statement, as `claimNext` takes one
   * (`FOR UPDATE SKIP LOCKED`, oldest due first, the budget of checks paid
   * in the same statement, k checks for k runs waiting for answers); see
   * {@link RunQueue.claimDue}. The claims come oldest due first.
   */
  async claimDue(options: RunClaimDueOptions): Promise<RunClaim[]> {
    return this.#claimDue("claimDue", options, checkClaimDueMax(options?.max));
  }

  async #claimDue(operation: string, options: RunClaimOptions, max: number): Promise<RunClaim[]> {
    const owner = ownerOf(options);
    const leaseMs = this.#leaseOf(options);
    // A rate beyond a billion a second limits nothing a fleet can do; it
    // is taken as a billion, so the bucket's sums and counts stay within
    // what float8 and bigint hold (Number.MAX_VALUE failed every claim).
    const given = checkChecksPerSecond(options.checksPerSecond);
    const rate = given === undefined ? null : Math.min(given, 1e9);
    // A claim that expired is taken over, unless its holder is this
    // process's and still renewing it ($5): it outlived an outage, not its holder.
    const due = `state IS NOT NULL AND next_check_at <= now()
            AND (lease_owner IS NULL OR ${lapsedLease("$5")})`;
    // The budget is split into shards, so that claims paying for checks
    // never queue on one row: min(16, floor(max(1, rate))) buckets (a rate
    // of 1 or less keeps one bucket of one check), each refilled at its
    // share of the rate, holding at most its share of one second's worth
    // (at least one check: every shard can pay for one), full at first.
    // The shards' sum keeps the whole budget's bound.
    const shards = "LEAST(16, floor(GREATEST(1, $3::float8)))";
    const capacity = `(GREATEST(1, $3::float8) / ${shards})`;
    const available = `LEAST(${capacity}, COALESCE(budget.tokens, ${capacity})
      + extract(epoch FROM now() - budget.refilled_at) * $3::float8 / ${shards})`;
    const checks = "(SELECT count(*) FROM next WHERE is_check)";
    const askedAt = Date.now();
    const { rows } = await this.#query<ClaimRow & { due_at: Date }>(
      operation,
      undefined,
      // The due runs checked longest ago of either kind: runs waiting for
      // answers only as many as the fullest shard no other claim holds has
      // room for, paid for from it in the same statement. A claim finding
      // every shard held or spent takes only runs that are not checks.
      `WITH shard AS (
         SELECT budget.shard, ${available} AS available
           FROM ${this.#budgetTable} AS budget
          WHERE $3::float8 IS NOT NULL AND budget.shard < ${shards} AND ${available} >= 1
          ORDER BY available DESC LIMIT 1
          FOR UPDATE SKIP LOCKED),
       other AS (
         SELECT run_id, status, lease_owner, next_check_at, false AS is_check
           FROM ${this.#table}
          WHERE NOT waits_for_answer AND status IN ${dueStatuses} AND ${due}
          ORDER BY next_check_at LIMIT $4
          FOR UPDATE SKIP LOCKED),
       waiting AS (
         SELECT run_id, status, lease_owner, next_check_at, true AS is_check
           FROM ${this.#table}
          WHERE waits_for_answer AND ${due}
          ORDER BY next_check_at
          LIMIT CASE WHEN $3::float8 IS NULL THEN $4
                     ELSE LEAST($4, COALESCE((SELECT floor(available)::bigint FROM shard), 0)) END
          FOR UPDATE SKIP LOCKED),
       next AS (
         SELECT * FROM other UNION ALL SELECT * FROM waiting
          ORDER BY next_check_at LIMIT $4),
       paid AS (
         UPDATE ${this.#budgetTable} AS budget
            SET tokens = shard.available - ${checks}, refilled_at = now()
           FROM shard WHERE budget.shard = shard.shard AND ${checks} > 0
         RETURNING 1)
       UPDATE ${this.#table} AS runs SET
         lease_owner = $1,
         lease_token = nextval('${this.#sequence}'),
         lease_expires_at = now() + $2 * interval '1 millisecond',
         next_check_at = now() + $2 * interval '1 millisecond',
         ${heldUntil("runs.")}
       FROM next WHERE runs.run_id = next.run_id
         AND (NOT next.is_check OR $3::float8 IS NULL OR EXISTS (SELECT 1 FROM paid))
       RETURNING runs.run_id, runs.lease_token AS token, runs.attempts, ${sinceHeld("runs.")},
         (next.lease_owner IS NOT NULL OR next.status = 'running') AS recovered,
         next.next_check_at AS due_at,
         runs.state, EXISTS (SELECT 1 FROM ${this.#sealedTable}) AS sealed_store`,
      () => [owner, leaseMs, rate, max, this.#renewing.tokens()],
    );
    return rows
      .sort((first, second) => first.due_at.getTime() - second.due_at.getTime())
      .map((row) => this.#claimFrom(row, owner, leaseMs, askedAt));
  }

  /** `askedAt`: when the claim statement was sent, so the lease is never thought longer than the server's. */
  #claimFrom(row: ClaimRow, owner: string, leaseMs: number, askedAt: number): RunClaim {
    const runId = row.run_id;
    const token = Number(row.token);
    const table = this.#table;
    const query = this.#query.bind(this);
    const renewing = this.#renewing;
    let expiresAt = new Date(askedAt + leaseMs);
    const claim: RunClaim = {
      runId,
      owner,
      token,
      recovered: row.recovered,
      attempts: row.attempts,
      ...(row.since_held_ms !== null ? { sincePreviousHolderMs: Number(row.since_held_ms) } : {}),
      get expiresAt() {
        return expiresAt;
      },
      renew: () =>
        renewing.renew(token, async () => {
          const renewedAt = Date.now();
          // Fenced by the token alone: a lease that expired while the store
          // could not be reached is renewed, unless another process took it.
          const { rowCount } = await query(
            "renew",
            runId,
            `UPDATE ${table} SET
               lease_expires_at = now() + $3 * interval '1 millisecond',
               next_check_at = CASE WHEN status IN ${dueStatuses}
                                    THEN now() + $3 * interval '1 millisecond' ELSE next_check_at END
             WHERE run_id = $1 AND lease_token = $2 AND lease_owner IS NOT NULL`,
            [runId, token, leaseMs],
          );
          if (rowCount !== 1) {
            renewing.forget(token);
            throw new RunConflictError({
              operation: "renew",
              runId,
              reason: "claim",
              message: `The claim on run "${runId}" was lost: another process took the run over, or it was released.`,
            });
          }
          expiresAt = new Date(renewedAt + leaseMs);
        }),
      async release(options: RunReleaseOptions = {}) {
        renewing.forget(token);
        if (isClaimEndedBySave(claim)) return;
        await query(
          "release",
          runId,
          `WITH reserved AS (
             DELETE FROM ${table} WHERE run_id = $1 AND lease_token = $2 AND state IS NULL)
           UPDATE ${table} SET lease_owner = NULL, lease_expires_at = NULL,
             next_check_at = CASE WHEN status IN ${dueStatuses}
                                  THEN now() + $3 * interval '1 millisecond' END,
             attempts = CASE WHEN $4::text IS NOT NULL THEN attempts + 1
                             WHEN $5::boolean THEN attempts ELSE 0 END,
             last_error = CASE WHEN $4::text IS NULL AND $5::boolean THEN last_error
                               ELSE $4::text END,
             acted_until = CASE WHEN revision IS DISTINCT FROM claimed_revision
                                THEN GREATEST(acted_until, LEAST(now(), lease_expires_at))
                                ELSE acted_until END
           WHERE run_id = $1 AND lease_token = $2 AND lease_owner IS NOT NULL
             AND state IS NOT NULL`,
          // A delay, not the caller's clock: the server's clock decides when the run is due.
          [
            runId,
            token,
            Math.max(0, (options.nextCheckAt?.getTime() ?? 0) - Date.now()),
            typeof options.error === "string" ? options.error : null,
            options.keepAttempts === true,
          ],
        );
      },
    };
    renewing.hold(token, leaseMs);
    return attachClaimedState(claim, this.#claimedState(row));
  }

  /**
   * The state a claim statement returned, when a resume may go on from it;
   * otherwise `undefined`, and the resume's `load` says what is wrong.
   */
  #claimedState(row: ClaimRow): RunState | undefined {
    if (row.state === null || (row.sealed_store && !isSealed(row.state))) return undefined;
    try {
      return parseRunState(row.state, `run "${row.run_id}" in schema "${this.schema}"`);
    } catch {
      return undefined;
    }
  }

  /** The run's next check, failures in a row and last error; see {@link RunQueue.schedule}. */
  async schedule(runId: string): Promise<RunSchedule | undefined> {
    checkRunId(runId);
    const { rows } = await this.#query<{
      next_check_at: Date | null;
      attempts: number;
      last_error: string | null;
    }>(
      "schedule",
      runId,
      `SELECT CASE WHEN next_check_at IS NOT NULL THEN GREATEST(next_check_at, updated_at) END
                AS next_check_at, attempts, last_error
         FROM ${this.#table}
        WHERE run_id = $1 AND state IS NOT NULL`,
      [runId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      ...(row.next_check_at ? { nextCheckAt: row.next_check_at } : {}),
      attempts: row.attempts,
      ...(row.attempts > 0 && row.last_error !== null ? { lastError: row.last_error } : {}),
    };
  }

  /** True when the approval's row is there (only a `startCall` that commits writes one). */
  async isApprovalUsed(approvalId: string): Promise<boolean> {
    const { rowCount } = await this.#query(
      "isApprovalUsed",
      undefined,
      `SELECT 1 FROM ${quoteIdentifier(this.schema)}.spent_approvals WHERE approval_id = $1`,
      [approvalId],
    );
    return rowCount === 1;
  }

  /**
   * Binds the interaction to its question, once: one statement inserts the
   * binding's row unless its key (link, interaction id) holds one, and
   * answers the row that holds the key. A bind of the same key committed
   * while the statement ran is not visible to it: the statement is sent
   * again and sees it. See {@link RunStore.bindInteraction}.
   */
  async bindInteraction(binding: InteractionBinding): Promise<InteractionBindingOutcome> {
    checkInteractionBinding(binding);
    const table = `${quoteIdentifier(this.schema)}.interaction_bindings`;
    const { approverLink, interactionId, question, runId } = binding;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const { rows } = await this.#query<{ question: string; run_id: string | null }>(
        "bindInteraction",
        runId,
        `WITH bound AS (
           INSERT INTO ${table} (approver_link, interaction_id, question, run_id)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (approver_link, interaction_id) DO NOTHING
           RETURNING question, run_id)
         SELECT question, run_id FROM bound
         UNION ALL
         SELECT question, run_id FROM ${table}
          WHERE approver_link = $1 AND interaction_id = $2
         LIMIT 1`,
        [approverLink, interactionId, question, runId],
      );
      const [held] = rows;
      if (held === undefined) continue;
      if (held.question === question) return { outcome: "bound" };
      return { outcome: "taken", ...(held.run_id !== null ? { runId: held.run_id } : {}) };
    }
    throw new RunStoreError({
      operation: "bindInteraction",
      runId,
      message: `Run store bindInteraction of run "${runId}" failed (PostgreSQL, schema "${this.schema}"): the binding neither took effect nor could be read after 3 attempts`,
    });
  }

  async recordFinish(runId: string, toolCallId: string, content: string): Promise<void> {
    await this.#query(
      "recordFinish",
      runId,
      `UPDATE ${quoteIdentifier(this.schema)}.tool_executions
          SET finished_at = now(), content = $3
        WHERE run_id = $1 AND tool_call_id = $2`,
      [runId, toolCallId, content],
    );
  }

  #leaseOf(options: RunClaimOptions): number {
    return checkLeaseMs(options.leaseMs ?? this.#leaseMs);
  }

  /**
   * Runs one statement once the tables are ready; any failure is a
   * RunStoreError naming the operation. `values` given as a function are
   * read at each attempt (what this process holds may change while an
   * outage is waited out).
   */
  async #query<Row extends QueryResultRow = QueryResultRow>(
    operation: string,
    runId: string | undefined,
    text: string,
    values: unknown[] | (() => unknown[]),
  ): Promise<{ rows: Row[]; rowCount: number }> {
    await this.migrate();
    try {
      return await this.#retrying(operation, runId, async () => {
        this.#roundTrips++;
        const result = await this.#pool.query<Row>(
          text,
          typeof values === "function" ? values() : values,
        );
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      });
    } catch (error) {
      throw new RunStoreError(
        {
          operation,
          runId,
          message: `Run store ${operation}${runId ? ` of run "${runId}"` : ""} failed (PostgreSQL, schema "${this.schema}"): ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
  }

  /**
   * Runs `attempt` again while it fails for a passing reason
   * ({@link isTransientPostgresError}), as `retry` spaces it; a failure that
   * outlasts the retries says so.
   */
  async #retrying<T>(
    operation: string,
    runId: string | undefined,
    attempt: () => Promise<T>,
  ): Promise<T> {
    const startedAt = Date.now();
    let attempts = 0;
    try {
      return await withRetries(
        () => {
          attempts++;
          return attempt();
        },
        {
          schedule: this.#retry,
          shouldRetry: isTransientPostgresError,
          onRetry: (error, retryNumber, delayMs) => {
            this.#logger.warn(
              { err: error, operation, runId, retryNumber, delayMs },
              `run store ${operation} failed for a passing reason; trying again in ${delayMs} ms`,
            );
          },
          signal: undefined,
          abortedError: () => new Error(`run store ${operation} was cut short`),
        },
      );
    } catch (error) {
      if (attempts <= 1 || !isTransientPostgresError(error)) throw error;
      throw new Error(
        `the database stayed unreachable through ${attempts} attempts over ${Math.round((Date.now() - startedAt) / 1000)} s (${describeThrown(error)}); check that PostgreSQL is up and reachable, or allow longer outages with the retry option`,
        { cause: error },
      );
    }
  }
}

/** What the statement of `startCall` answers. */
interface StartRow {
  saved: boolean;
  fenced: boolean;
  used: { runId: string | null; toolCallId: string | null } | null;
  earlier: { toolCallId: string; content: string | null } | null;
}

/** A unique key refused a row (SQLSTATE 23505). */
function isUniqueViolation(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    if ((cause as { code?: unknown }).code === "23505") return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** The connection held to LISTEN, and how to give it back to the pool, once. */
interface ListeningClient {
  client: PoolClient;
  release(error?: Error): void;
}

interface ClaimRow {
  run_id: string;
  token: string;
  recovered: boolean;
  /** Failed attempts in a row (the column is never null). */
  attempts: number;
  /** Milliseconds since an earlier holder stopped acting on the run (`RunClaim.sincePreviousHolderMs`). */
  since_held_ms: string | number | null;
  /** The run's state (`null` while the run is reserved, not saved yet). */
  state: unknown;
  sealed_store: boolean;
}

function isSealed(state: unknown): boolean {
  return typeof (state as { seal?: unknown } | null)?.seal === "string";
}

function ownerOf(options: RunClaimOptions): string {
  return options.owner ?? `${hostname()}:${process.pid}`;
}

function checkRunId(runId: string): void {
  const problem = findRunIdProblem(runId);
  if (problem)
    throw new ConfigurationError(`${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
}
