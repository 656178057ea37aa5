import type { PoolClient } from "pg";

/**
 * The store's migrations, in order: migration `n` (1-based) brings the
 * schema from version `n - 1` to `n`. Released migrations never change;
 * a new version appends one. `{schema}` is the quoted schema name.
 */
export const postgresMigrations: readonly string[] = [
  `
  CREATE TABLE {schema}.runs (
    run_id           text PRIMARY KEY,
    status           text NOT NULL,
    -- NULL while a run is claimed but not saved yet.
    state            jsonb,
    summary          jsonb,
    revision         bigint NOT NULL DEFAULT 0,
    lease_owner      text,
    lease_token      bigint NOT NULL DEFAULT 0,
    lease_expires_at timestamptz,
    next_check_at    timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX runs_by_status ON {schema}.runs (status, updated_at DESC, run_id)
    WHERE state IS NOT NULL;
  CREATE INDEX runs_by_update ON {schema}.runs (updated_at DESC, run_id)
    WHERE state IS NOT NULL;
  CREATE INDEX runs_due ON {schema}.runs (next_check_at)
    WHERE status IN ('suspended', 'running') AND state IS NOT NULL;
  CREATE TABLE {schema}.tool_executions (
    run_id       text NOT NULL REFERENCES {schema}.runs ON DELETE CASCADE,
    tool_call_id text NOT NULL,
    fingerprint  text NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    content      text,
    PRIMARY KEY (run_id, tool_call_id)
  );
  CREATE TABLE {schema}.used_approvals (
    interaction_id text PRIMARY KEY,
    fingerprint    text NOT NULL,
    used_at        timestamptz NOT NULL DEFAULT now()
  );
  `,
  // Fencing tokens from one sequence, so no two claims of any runs share a
  // token; write_id names the statement that last wrote a row, so a
  // statement sent again after a lost connection recognises its own write.
  `
  CREATE SEQUENCE {schema}.lease_tokens;
  SELECT setval('{schema}.lease_tokens',
                (SELECT COALESCE(max(lease_token), 0) + 1 FROM {schema}.runs), false);
  ALTER TABLE {schema}.runs ADD COLUMN write_id text;
  ALTER TABLE {schema}.used_approvals ADD COLUMN write_id text;
  ALTER TABLE {schema}.tool_executions ADD COLUMN write_id text;
  `,
  // Spending an approval and starting its call are one transaction: a used
  // approval names its service (ids of two services never collide) and the
  // call that spent it; a call is also known by its content within the run.
  `
  ALTER TABLE {schema}.used_approvals
    ADD COLUMN service text NOT NULL DEFAULT '',
    ADD COLUMN run_id text,
    ADD COLUMN tool_call_id text;
  ALTER TABLE {schema}.used_approvals DROP CONSTRAINT used_approvals_pkey;
  ALTER TABLE {schema}.used_approvals ADD PRIMARY KEY (service, interaction_id);
  ALTER TABLE {schema}.tool_executions ADD COLUMN content_key text;
  CREATE UNIQUE INDEX tool_executions_by_content
    ON {schema}.tool_executions (run_id, content_key);
  `,
  // A row here once a sealed state was saved: from then on the store
  // refuses unsealed states, whoever writes or reads them.
  `
  CREATE TABLE {schema}.sealed_states (
    sealed    boolean PRIMARY KEY DEFAULT true CHECK (sealed),
    sealed_at timestamptz NOT NULL DEFAULT now()
  );
  `,
  // Idle workers LISTEN on switchyard_due: a run that becomes due (a new
  // run released, a release due at once, a wake) is announced at commit,
  // with the schema and the run's id, so a worker takes it without waiting
  // for its next poll.
  `
  CREATE FUNCTION {schema}.notify_due() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.state IS NOT NULL AND NEW.status IN ('suspended', 'running')
       AND NEW.next_check_at IS NOT NULL AND NEW.next_check_at <= now()
       AND (NEW.lease_owner IS NULL OR NEW.lease_expires_at <= now()) THEN
      PERFORM pg_notify('switchyard_due', TG_TABLE_SCHEMA || ' ' || NEW.run_id);
    END IF;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER runs_notify_due AFTER INSERT OR UPDATE ON {schema}.runs
    FOR EACH ROW EXECUTE FUNCTION {schema}.notify_due();
  `,
  // A run whose resume failed keeps the failures in a row and the last
  // error (the worker backs off by them; runs show prints them).
  `
  ALTER TABLE {schema}.runs
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN last_error text;
  `,
  // The fleet's budget of approval checks per second: a run waiting for
  // answers is a check when it is claimed, paid for from one token bucket
  // row (full at first: tokens NULL); the due runs of each kind have an
  // index of their own, so a spent budget never makes claimNext walk the
  // waiting runs to find another.
  `
  ALTER TABLE {schema}.runs ADD COLUMN waits_for_answer boolean NOT NULL
    GENERATED ALWAYS AS (status = 'suspended' AND COALESCE(
      summary -> 'pendingCalls' @> '[{"phase": "awaiting_approval"}]', false)) STORED;
  CREATE INDEX runs_due_checks ON {schema}.runs (next_check_at)
    WHERE waits_for_answer AND state IS NOT NULL;
  CREATE INDEX runs_due_others ON {schema}.runs (next_check_at)
    WHERE NOT waits_for_answer AND status IN ('suspended', 'running') AND state IS NOT NULL;
  CREATE TABLE {schema}.check_budget (
    single      boolean PRIMARY KEY DEFAULT true CHECK (single),
    tokens      double precision,
    refilled_at timestamptz NOT NULL DEFAULT now()
  );
  INSERT INTO {schema}.check_budget DEFAULT VALUES;
  `,
  // The budget of checks in shards: up to 16 buckets, each refilled at its
  // share of the rate with its share of the capacity, so a claim pays from
  // a shard no other claim holds (FOR UPDATE SKIP LOCKED) instead of
  // queueing on one row. The one-row bucket stays, refusing to be paid
  // from: a worker of the previous version still running (its statement
  // reads the row) keeps claiming without a budget, and with one fails
  // the claims that would pay, saying why, instead of keeping a second
  // budget beside this one.
  `
  CREATE TABLE {schema}.check_budget_shards (
    shard       smallint PRIMARY KEY CHECK (shard BETWEEN 0 AND 15),
    tokens      double precision,
    refilled_at timestamptz NOT NULL DEFAULT now()
  );
  INSERT INTO {schema}.check_budget_shards (shard) SELECT generate_series(0, 15);
  CREATE FUNCTION {schema}.refuse_check_budget() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'the budget of approval checks moved to %.check_budget_shards (schema version 8): this worker runs an older Switchyard; restart this worker on the version of Switchyard that migrated the schema', TG_TABLE_SCHEMA
      USING ERRCODE = '55000';
  END
  $$;
  CREATE TRIGGER check_budget_moved BEFORE UPDATE ON {schema}.check_budget
    FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_check_budget();
  `,
  // The audit log of approval decisions, one chain for every worker: each
  // entry's JSON text as its hash covers it, and the head (entry count and
  // last hash, keyed when the log is) in one row, locked by each append,
  // so concurrent appends take turns and a deleted last entry is caught.
  `
  CREATE TABLE {schema}.audit_log (
    seq         bigint PRIMARY KEY,
    entry       text NOT NULL,
    run_id      text,
    appended_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX audit_log_by_run ON {schema}.audit_log (run_id, seq);
  CREATE TABLE {schema}.audit_head (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    head   text
  );
  INSERT INTO {schema}.audit_head DEFAULT VALUES;
  `,
  // Approvals are spent under the agent's own approval id (unguessable, never
  // reused), no longer under an approver's interaction id and its service;
  // used_approvals keeps the spends of earlier versions.
  `
  CREATE TABLE {schema}.spent_approvals (
    approval_id  text PRIMARY KEY,
    fingerprint  text NOT NULL,
    run_id       text,
    tool_call_id text,
    write_id     text,
    spent_at     timestamptz NOT NULL DEFAULT now()
  );
  `,
  // Which question each interaction of an approver link holds, bound once:
  // an answer read from an interaction never approves another question.
  `
  CREATE TABLE {schema}.interaction_bindings (
    approver_link  text NOT NULL,
    interaction_id text NOT NULL,
    question       text NOT NULL,
    run_id         text,
    bound_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (approver_link, interaction_id)
  );
  `,
  // When every process that held a run before its current claim stopped
  // acting on it (a lease that lapsed or was taken over, a holder that
  // released after it wrote): a started call is reconciled only a tool's
  // timeout after that. claimed_revision tells a release that wrote.
  `
  ALTER TABLE {schema}.runs ADD COLUMN acted_until timestamptz;
  ALTER TABLE {schema}.runs ADD COLUMN claimed_revision bigint;
  `,
  // Runs listed by the start of their id (runIdPrefix: an AG-UI thread's
  // runs) are found by this index, whatever the database's collation.
  `
  CREATE INDEX runs_by_id_prefix ON {schema}.runs (run_id text_pattern_ops);
  `,
];

/** The channel {@link postgresMigrations} announce due runs on; the payload is `<schema> <run id>`. */
export const dueChannel = "switchyard_due";

/**
 * Brings the schema to the newest version, in one transaction holding an
 * advisory lock on the schema's name: processes starting at once wait for
 * the first, then find nothing left to do. Refuses a schema a newer
 * Switchyard migrated (its code would not know the tables).
 */
export async function migrate(client: PoolClient, schema: string): Promise<void> {
  const quoted = quoteIdentifier(schema);
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
      `switchyard.migrate:${schema}`,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
         version    integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${quoted}.schema_migrations`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > postgresMigrations.length) {
      throw new Error(
        `schema "${schema}" is at version ${current}, made by a newer Switchyard (this one knows versions up to ${postgresMigrations.length}); upgrade Switchyard, or use another schema`,
      );
    }
    for (let version = current + 1; version <= postgresMigrations.length; version++) {
      const text = postgresMigrations[version - 1] ?? "";
      await client.query(text.replaceAll("{schema}", quoted));
      await client.query(`INSERT INTO ${quoted}.schema_migrations (version) VALUES ($1)`, [
        version,
      ]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** A schema name the store accepts: lower-case letters, digits and `_`, up to 63. */
export const schemaNamePattern = /^[a-z_][a-z0-9_]{0,62}$/;

/** The identifier in double quotes, as SQL takes it. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
