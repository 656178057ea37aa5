import type { Pool, PoolClient } from "pg";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLog, AuditLogVerification } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import {
  type AuditLogEntry,
  chainHead,
  checkAuditKey,
  nextEntry,
  parseAuditEntry,
  parseAuditHead,
  verifyAuditChain,
} from "./audit-chain.js";
import { migrate, quoteIdentifier } from "./postgres-migrations.js";
import { checkPostgresPool, openPostgresPool, withPoolClient } from "./postgres-pool.js";

/** Options of {@link PostgresAuditLog}: a pool of yours, or a connection string. */
export interface PostgresAuditLogOptions {
  /** A `pg.Pool` of yours (e.g. the one a `PostgresRunStore` uses); never ended here. Give this or `connectionString`. */
  pool?: Pool | undefined;
  /** `postgres://user:password@host:5432/database`; a pool of its own, ended by `close()`. Give this or `pool`. */
  connectionString?: string | undefined;
  /**
   * The schema holding the tables (`audit_log`, `audit_head`), the run
   * store's: created and migrated on first use.
   * @default "switchyard"
   */
  schema?: string | undefined;
  /**
   * The key of the chain (at least 32 characters): each entry's hash and the
   * head are HMAC-SHA256 under it. Without one the hashes are plain SHA-256
   * and show accidental damage, not forgery.
   * @default none
   */
  auditKey?: string | undefined;
}

/**
 * The audit log of approval decisions in PostgreSQL, beside the run
 * store's tables: one hash chain for a fleet of workers. Each append locks
 * the head row, chains the entry to the last one and moves the head in one
 * transaction, so appends from any number of connections keep one chain in
 * order; the head (entry count and last hash, keyed with `auditKey`) is
 * what catches entries deleted from the end.
 *
 * @example
 * const auditLog = new PostgresAuditLog({ pool, auditKey: process.env.SWITCHYARD_AUDIT_KEY });
 * const agent = new Agent({ model, tools, approver, runStore, auditLog });
 */
export class PostgresAuditLog implements AuditLog {
  /** The schema holding the tables. */
  readonly schema: string;
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #key: string | undefined;
  readonly #log: string;
  readonly #head: string;
  readonly #prepare: (() => Promise<void>) | undefined;
  #ready: Promise<void> | undefined;

  /**
   * @param prepare How the tables are made ready before each statement: a
   * run store's own migration (`PostgresRunStore.auditLog`), so the schema
   * is migrated once for both. Without it the log migrates the schema
   * itself, on first use.
   */
  constructor(options: PostgresAuditLogOptions, prepare?: () => Promise<void>) {
    const problems: string[] = [];
    const schema = checkPostgresPool(options, "PostgresAuditLog", problems);
    if (problems.length > 0) throw new ConfigurationError(problems);
    this.#key = checkAuditKey(options.auditKey, "PostgresAuditLog");
    this.schema = schema;
    this.#log = `${quoteIdentifier(schema)}.audit_log`;
    this.#head = `${quoteIdentifier(schema)}.audit_head`;
    this.#prepare = prepare;
    // A log nobody closes does not keep the process alive.
    const opened = openPostgresPool(options, "PostgresAuditLog", { max: 2, allowExitOnIdle: true });
    this.#ownsPool = opened.owned;
    this.#pool = opened.pool;
  }

  /** The database and schema, for messages. */
  get where(): string {
    return `the PostgreSQL audit log (schema ${this.schema})`;
  }

  /** Appends one record, chained to the last entry, and moves the head, in one transaction. */
  async append(record: ApprovalAuditRecord): Promise<void> {
    await this.#withClient(async (client) => {
      await client.query("BEGIN");
      try {
        const { rows } = await client.query<{ head: string | null }>(
          `SELECT head FROM ${this.#head} FOR UPDATE`,
        );
        const last = await this.#lastEntry(client, rows[0]?.head ?? null);
        const entry = nextEntry(last, record, this.#key, this.where);
        await client.query(`INSERT INTO ${this.#log} (seq, entry, run_id) VALUES ($1, $2, $3)`, [
          entry.seq,
          JSON.stringify(entry),
          record.runId ?? null,
        ]);
        await client.query(`UPDATE ${this.#head} SET head = $1`, [
          JSON.stringify(chainHead(entry.seq, entry.hash, this.#key)),
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  /** The records in order, optionally one run's; throws on an entry of an unknown shape. */
  async read(options: { runId?: string } = {}): Promise<ApprovalAuditRecord[]> {
    const { rows } = await this.#query<{ seq: string; entry: string }>(
      options.runId === undefined
        ? `SELECT seq, entry FROM ${this.#log} ORDER BY seq`
        : `SELECT seq, entry FROM ${this.#log} WHERE run_id = $1 ORDER BY seq`,
      options.runId === undefined ? [] : [options.runId],
    );
    return rows.map((row) => {
      const entry = parseAuditEntry(row.entry);
      if ("problem" in entry) throw new Error(`${this.where}, entry ${row.seq}: ${entry.problem}`);
      return entry.record;
    });
  }

  /** Checks the whole chain and the head row; a keyed log without the key throws a `ConfigurationError`. */
  async verify(): Promise<AuditLogVerification> {
    const { entries, head } = await this.#withClient(async (client) => {
      // One snapshot of the entries and the head.
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        const log = await client.query<{ seq: string; entry: string }>(
          `SELECT seq, entry FROM ${this.#log} ORDER BY seq`,
        );
        const row = await client.query<{ head: string | null }>(`SELECT head FROM ${this.#head}`);
        await client.query("COMMIT");
        return { entries: log.rows, head: row.rows[0]?.head ?? null };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
    const problems: string[] = [];
    entries.forEach((row, index) => {
      if (Number(row.seq) !== index + 1) {
        problems.push(`entry ${index + 1}: stored as number ${row.seq} (an entry was removed)`);
      }
    });
    let storedHead: unknown;
    if (head !== null) {
      try {
        storedHead = JSON.parse(head);
      } catch {
        storedHead = { unreadable: true };
      }
    }
    return verifyAuditChain(
      entries.map((row) => row.entry),
      storedHead,
      { key: this.#key, where: this.where, problems, headRequired: true },
    );
  }

  /** Ends the pool it made (a pool it was given is left open). */
  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }

  async #lastEntry(client: PoolClient, head: string | null): Promise<AuditLogEntry | undefined> {
    if (head === null) return undefined;
    const parsedHead = parseAuditHead(JSON.parse(head));
    if ("problem" in parsedHead) throw new Error(`${this.where}: ${parsedHead.problem}`);
    if (parsedHead.entries === 0) return undefined;
    const { rows } = await client.query<{ entry: string }>(
      `SELECT entry FROM ${this.#log} WHERE seq = $1`,
      [parsedHead.entries],
    );
    const entry = rows[0] ? parseAuditEntry(rows[0].entry) : undefined;
    if (!entry || "problem" in entry || entry.hash !== parsedHead.lastHash) {
      // Never chain onto a log whose end does not match its head.
      throw new Error(
        `${this.where} does not end where its head says (entry ${parsedHead.entries}); check it with switchyard audit verify`,
      );
    }
    return entry;
  }

  async #query<Row extends object>(text: string, values: unknown[]): Promise<{ rows: Row[] }> {
    return this.#withClient((client) => client.query<Row>(text, values));
  }

  /** Runs `body` on a client of its own once the tables are ready; a client that failed is destroyed. */
  async #withClient<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    if (this.#prepare) await this.#prepare();
    else {
      this.#ready ??= withPoolClient(this.#pool, (client) => migrate(client, this.schema)).catch(
        (error: unknown) => {
          this.#ready = undefined;
          throw error;
        },
      );
      await this.#ready;
    }
    return withPoolClient(this.#pool, body);
  }
}
