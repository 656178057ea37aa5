import type { KeyObject } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLog, AuditLogHead, AuditLogVerification } from "../agent/approval/audit-log.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { anchorAuditHead } from "./anchor-audit-head.js";
import {
  type AuditChainKeys,
  type AuditLogEntry,
  chainHead,
  checkAuditLogSettings,
  checkTrailEnd,
  genesisHead,
  nextEntry,
  parseAuditEntry,
} from "./audit-chain.js";
import {
  type AuditBundle,
  type AuditBundleSelection,
  exportSigned,
} from "./export-audit-bundle.js";
import { migrate, quoteIdentifier } from "./postgres-migrations.js";
import { checkPostgresPool, openPostgresPool, withPoolClient } from "./postgres-pool.js";
import { verifyAuditChain } from "./verify-audit-chain.js";

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
  /**
   * The Ed25519 private key that signs the chain (PKCS#8 PEM text or a
   * `KeyObject`): each entry and each head carry a signature anyone can
   * check with the public key alone. Keep it with the agent, never in the
   * database.
   * @default none
   */
  auditSigningKey?: string | KeyObject | undefined;
  /**
   * The public key a signed log is checked with (SPKI PEM text or a `KeyObject`).
   * @default the public half of `auditSigningKey`
   */
  publicKey?: string | KeyObject | undefined;
  /**
   * A shell command that receives each head the log commits, as one line
   * of JSON on its stdin, to keep a copy outside the database. It runs
   * once the transaction has committed, so a head it does not take does not
   * fail the append: it is a warning to `logger` (else a process warning),
   * and the next head anchored covers it.
   * @default none
   */
  anchorCommand?: string | undefined;
  /** Where an anchor that failed is reported (a pino logger, `warn`). @default a process warning */
  logger?: Logger | undefined;
}

/**
 * The audit log of approval decisions in PostgreSQL, beside the run
 * store's tables: one hash chain for a fleet of workers. Each append locks
 * the head row, checks that the trail ends where its head says, chains the
 * entry to the last one and moves the head in one transaction, so appends
 * from any number of connections keep one chain in order; the head (entry
 * count and last hash, signed with `auditSigningKey` or keyed with
 * `auditKey`) is what catches entries deleted from the end, and a trail
 * emptied with its head does not verify.
 *
 * @example
 * const auditLog = new PostgresAuditLog({ pool, auditSigningKey: process.env.SWITCHYARD_AUDIT_SIGNING_KEY });
 * const agent = new Agent({ model, tools, approver, runStore, auditLog });
 */
export class PostgresAuditLog implements AuditLog {
  /** The schema holding the tables. */
  readonly schema: string;
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #keys: AuditChainKeys;
  readonly #publicKey: KeyObject | undefined;
  readonly #anchorCommand: string | undefined;
  readonly #logger: Logger | undefined;
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
    const settings = checkAuditLogSettings(options, "PostgresAuditLog");
    this.#keys = settings.keys;
    this.#publicKey = settings.publicKey;
    this.#anchorCommand = settings.anchorCommand;
    this.#logger = options.logger ? componentLogger(options.logger, "audit-log") : undefined;
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
    const head = await this.#inHeadTransaction(async (client, begun) => {
      const { last, head: before } = begun;
      const entry = nextEntry(last, record, this.#keys, this.where);
      await client.query(`INSERT INTO ${this.#log} (seq, entry, run_id) VALUES ($1, $2, $3)`, [
        entry.seq,
        JSON.stringify(entry),
        record.runId ?? null,
      ]);
      return chainHead(entry.seq, entry.hash, this.#keys, before);
    });
    if (this.#anchorCommand !== undefined)
      await anchorAuditHead(this.#anchorCommand, head, this.#logger);
  }

  /**
   * Begins the trail when it has not begun: with a key or a signing key,
   * commits the head of 0 entries (keyed, signed, naming a new chain), so
   * an empty trail verifies. Throws when the trail's end is not one this
   * writer can vouch for. `append` does it on first use.
   */
  async open(): Promise<void> {
    let begun: AuditLogHead | undefined;
    await this.#inHeadTransaction(async (_client, checked) => {
      begun = checked.begun;
      return undefined;
    });
    if (begun && this.#anchorCommand !== undefined)
      await anchorAuditHead(this.#anchorCommand, begun, this.#logger);
  }

  /**
   * Locks the head row, checks the trail's end, begins the trail when it
   * must, runs `body` and stores the head it returns, in one transaction.
   */
  async #inHeadTransaction<Head extends AuditLogHead | undefined>(
    body: (
      client: PoolClient,
      checked: {
        last: AuditLogEntry | undefined;
        head: AuditLogHead | undefined;
        begun: AuditLogHead | undefined;
      },
    ) => Promise<Head>,
  ): Promise<Head> {
    return this.#withClient(async (client) => {
      await client.query("BEGIN");
      try {
        const { rows } = await client.query<{ head: string | null }>(
          `SELECT head FROM ${this.#head} FOR UPDATE`,
        );
        if (rows.length === 0) {
          throw new Error(
            `${this.where} has lost its head row (the audit_head table is empty: it was deleted); check the trail with switchyard audit verify and keep it as evidence`,
          );
        }
        const last = await this.#lastEntry(client);
        const checked = checkTrailEnd(
          parseStoredHead(rows[0]?.head ?? null),
          last,
          this.#keys,
          this.where,
          false,
        );
        const begun = checked.begin ? genesisHead(this.#keys) : undefined;
        const head = await body(client, { last, head: begun ?? checked.head, begun });
        const written = head ?? begun;
        if (written) {
          await client.query(`UPDATE ${this.#head} SET head = $1`, [JSON.stringify(written)]);
        }
        await client.query("COMMIT");
        return head;
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

  /**
   * Checks the whole chain and the head row, and with `anchor` (a head
   * kept elsewhere) that the trail still holds what it names; a keyed log
   * without the key, or a signed one without the public key, throws a
   * `ConfigurationError`.
   */
  async verify(options: { anchor?: unknown } = {}): Promise<AuditLogVerification> {
    const { rows, head } = await this.#readRows();
    const problems: string[] = [];
    rows.forEach((row, index) => {
      if (Number(row.seq) !== index + 1) {
        problems.push(`entry ${index + 1}: stored as number ${row.seq} (an entry was removed)`);
      }
    });
    return verifyAuditChain(
      rows.map((row) => row.entry),
      parseStoredHead(head),
      {
        key: this.#keys.key,
        publicKey: this.#publicKey,
        where: this.where,
        problems,
        headRequired: true,
        ...(options.anchor !== undefined ? { anchor: options.anchor } : {}),
      },
    );
  }

  /**
   * A bundle of the selected records (one run's, a time range's, or all)
   * with their signatures, the signed head and the public key, which
   * `verifyAuditLog` (or `switchyard audit verify`) checks offline with no
   * secret. The log must be signed and verify under its public key, or this
   * throws.
   */
  exportBundle(selection: AuditBundleSelection = {}): Promise<AuditBundle> {
    return exportSigned(this, this.#publicKey, selection);
  }

  /** The entries and the head, as stored, read in one snapshot. */
  async readTrail(): Promise<{ entries: string[]; head: unknown }> {
    const { rows, head } = await this.#readRows();
    return { entries: rows.map((row) => row.entry), head: parseStoredHead(head) };
  }

  async #readRows(): Promise<{ rows: Array<{ seq: string; entry: string }>; head: string | null }> {
    return this.#withClient(async (client) => {
      // One snapshot of the entries and the head.
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        const log = await client.query<{ seq: string; entry: string }>(
          `SELECT seq, entry FROM ${this.#log} ORDER BY seq`,
        );
        const row = await client.query<{ head: string | null }>(`SELECT head FROM ${this.#head}`);
        await client.query("COMMIT");
        return { rows: log.rows, head: row.rows[0]?.head ?? null };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  /** Ends the pool it made (a pool it was given is left open). */
  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }

  /** The entry of the highest number; an unreadable one stops the append (never chain onto a broken log). */
  async #lastEntry(client: PoolClient): Promise<AuditLogEntry | undefined> {
    const { rows } = await client.query<{ seq: string; entry: string }>(
      `SELECT seq, entry FROM ${this.#log} ORDER BY seq DESC LIMIT 1`,
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const entry = parseAuditEntry(row.entry);
    if ("problem" in entry || entry.seq !== Number(row.seq)) {
      throw new Error(
        `${this.where} ends with an entry (number ${row.seq}) that is not one Switchyard wrote there; check it with switchyard audit verify`,
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

/** The head row's JSON text, parsed; undefined when there is none. */
function parseStoredHead(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { unreadable: true };
  }
}
