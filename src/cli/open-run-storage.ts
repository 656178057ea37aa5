import type { RunQueue } from "../agent/durable/run-queue.js";
import type { RunStore } from "../agent/durable/run-store.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { JsonlAuditLog } from "../stores/jsonl-audit-log.js";
import type { PostgresAuditLog } from "../stores/postgres-audit-log.js";
import type { CliIo } from "./cli-io.js";
import { type CliRunRecord, CliRunRecordError, cliRunRecordFormat } from "./cli-run-records.js";
import { CommandError, usageError } from "./command-error.js";
import { exitCodes } from "./exit-codes.js";
import { displayUrl } from "./format-text.js";
import { auditSettingsOf, openAuditLog, openStateDirectory } from "./open-state-directory.js";

/** The run metadata key holding a run's {@link CliRunRecord}, as JSON. */
export const cliRecordMetadataKey = "switchyard.cli";

/** Which example each run belongs to, wherever the runs are kept. */
export interface RunRecords {
  /** Keeps the record of a run about to start (a store that keeps it in the run's metadata does nothing here). */
  save(record: CliRunRecord): Promise<void>;
  /** The run's record; `undefined` when the run was not started by `switchyard run --no-wait`. */
  load(runId: string): Promise<CliRunRecord | undefined>;
  delete(runId: string): Promise<void>;
  /** Where the record of a run is looked for, for messages. */
  describe(runId: string): string;
}

/** Where the command keeps durable runs: the store and the records of which example each is. */
export interface RunStorage {
  /** For messages: the state directory, or the database and schema. */
  where: string;
  /** The state directory's absolute path; undefined when the runs are in PostgreSQL. */
  directory: string | undefined;
  /** The PostgreSQL schema holding the runs; undefined when they are in a directory. */
  schema: string | undefined;
  /** The environment variable that chose it. */
  variable: "SWITCHYARD_STATE_DIR" | "SWITCHYARD_DATABASE_URL";
  /** The runs' store, which is also their queue. */
  store: RunStore & RunQueue;
  records: RunRecords;
  /**
   * The runs' audit log, keyed with `SWITCHYARD_AUDIT_KEY` when set: in
   * PostgreSQL the store's own (its schema and pool, no pool of its own),
   * else the file {@link openAuditLog} names.
   */
  auditLog: JsonlAuditLog | PostgresAuditLog;
  /** Ends the store's connections, the audit log's with them. */
  close(): Promise<void>;
}

/**
 * The runs' storage: PostgreSQL when `SWITCHYARD_DATABASE_URL` is set (in
 * `SWITCHYARD_DATABASE_SCHEMA`, default `switchyard`; `pg` is loaded only
 * then), else the state directory (`SWITCHYARD_STATE_DIR`); with their
 * audit log, keyed with `SWITCHYARD_AUDIT_KEY` and signed with
 * `SWITCHYARD_AUDIT_SIGNING_KEY` (a key too short, or not a signing key, is
 * a usage error). The database's
 * tables are prepared here, so a database that cannot be reached is an
 * error naming `SWITCHYARD_DATABASE_URL`; with `prepare: false` (the worker,
 * which keeps trying and reports each failure) on first use instead.
 */
export async function openRunStorage(
  env: CliIo["env"],
  options: { prepare?: boolean } = {},
): Promise<RunStorage> {
  const { auditKey, auditSigningKey, anchorCommand } = auditSettingsOf(env);
  const url = env.SWITCHYARD_DATABASE_URL?.trim();
  if (url) {
    const { PostgresRunStore } = await import("../stores/postgres-run-store.js");
    const schema = env.SWITCHYARD_DATABASE_SCHEMA?.trim();
    const store = createStore(
      () =>
        new PostgresRunStore({
          connectionString: url,
          auditKey,
          auditSigningKey,
          auditAnchorCommand: anchorCommand,
          ...(schema ? { schema } : {}),
        }),
    );
    try {
      if (options.prepare !== false) await store.migrate();
    } catch (error) {
      await store.close().catch(() => {});
      throw new CommandError(
        `SWITCHYARD_DATABASE_URL ${displayUrl(url)}: ${(error as Error).message}`,
        exitCodes.notCompleted,
        { cause: error },
      );
    }
    return {
      where: `the PostgreSQL database, schema ${store.schema}`,
      directory: undefined,
      schema: store.schema,
      variable: "SWITCHYARD_DATABASE_URL",
      store,
      records: metadataRecords(store),
      auditLog: store.auditLog,
      close: () => store.close(),
    };
  }
  const directory = openStateDirectory(env);
  const { records } = directory;
  return {
    where: directory.directory,
    directory: directory.directory,
    schema: undefined,
    variable: "SWITCHYARD_STATE_DIR",
    store: directory.store,
    records: {
      save: (record) => records.save(record),
      load: (runId) => records.load(runId),
      delete: (runId) => records.delete(runId),
      describe: (runId) => records.pathOf(runId),
    },
    auditLog: openAuditLog(env),
    close: async () => {},
  };
}

/** The store, or a usage error whose problems name the variables instead of the options. */
function createStore<Store>(create: () => Store): Store {
  try {
    return create();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const problems = error.problems.map((problem) =>
      problem
        .replace(/^connectionString\b/, "SWITCHYARD_DATABASE_URL")
        .replace(/^schema\b/, "SWITCHYARD_DATABASE_SCHEMA"),
    );
    throw usageError(problems.join("\n"), { cause: error });
  }
}

/** Records kept in each run's own metadata, for stores shared by machines. */
function metadataRecords(store: RunStore): RunRecords {
  return {
    save: async () => {},
    delete: async () => {},
    describe: (runId) => `the metadata of run "${runId}" (${cliRecordMetadataKey})`,
    load: async (runId) => {
      const text = (await store.load(runId)).metadata?.[cliRecordMetadataKey];
      if (text === undefined) return undefined;
      try {
        const record = JSON.parse(text) as CliRunRecord;
        if (record.format === cliRunRecordFormat && record.runId === runId) return record;
      } catch {
        // Reported below.
      }
      throw new CliRunRecordError(
        runId,
        `the metadata of run "${runId}"`,
        `${cliRecordMetadataKey} is not a record of switchyard run --no-wait`,
      );
    },
  };
}
