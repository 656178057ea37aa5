import type { Pool, PoolClient } from "pg";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";
import { schemaNamePattern } from "./postgres-migrations.js";

/** How a PostgreSQL store reaches its database: a pool of yours or a connection string, and its schema. */
export interface PostgresPoolOptions {
  pool?: Pool | undefined;
  connectionString?: string | undefined;
  schema?: string | undefined;
}

/**
 * Checks how a PostgreSQL store (`store`, its class name, for the
 * messages) is to reach its database: exactly one of `pool` and
 * `connectionString`, a `postgres://` URL, a valid schema name. Adds what
 * is wrong to `problems` (the store throws them with its own, as one
 * ConfigurationError); returns the schema, `"switchyard"` by default.
 */
export function checkPostgresPool(
  options: PostgresPoolOptions | undefined,
  store: string,
  problems: string[],
): string {
  const { pool, connectionString } = options ?? {};
  if ((pool === undefined) === (connectionString === undefined)) {
    problems.push(
      `${store} needs exactly one of pool (a pg.Pool) or connectionString (postgres://user:password@host:5432/database).`,
    );
  }
  if (connectionString !== undefined) {
    const problem = connectionStringProblem(connectionString, "connectionString");
    if (problem !== undefined) problems.push(problem);
  }
  const schema = options?.schema ?? "switchyard";
  const problem = schemaProblem(schema, "schema");
  if (problem !== undefined) problems.push(problem);
  return schema;
}

/**
 * What is wrong with a PostgreSQL connection string given as `option` (its
 * name, for the message); `undefined` when it is a `postgres://` URL.
 */
export function connectionStringProblem(value: unknown, option: string): string | undefined {
  if (typeof value === "string" && /^postgres(ql)?:\/\//.test(value)) return undefined;
  return `${option} must be a postgres:// URL, e.g. postgres://host:5432/database (user and password go before the host: name:secret@host).`;
}

/**
 * What is wrong with a schema name given as `option` (its name, for the
 * message); `undefined` when it is one the stores can quote safely.
 */
export function schemaProblem(value: unknown, option: string): string | undefined {
  if (typeof value === "string" && schemaNamePattern.test(value)) return undefined;
  return `${option} ${JSON.stringify(value)} is not valid: use lower-case letters, digits and "_" (up to 63, not starting with a digit).`;
}

/**
 * The pool of checked options ({@link checkPostgresPool}): the one given
 * (`owned: false`, never ended by the store), or one made from the
 * connection string with `settings` (`owned: true`, the store ends it).
 */
export function openPostgresPool(
  options: PostgresPoolOptions,
  store: string,
  settings: { max: number; allowExitOnIdle?: boolean },
): { pool: Pool; owned: boolean } {
  if (options.pool) return { pool: options.pool, owned: false };
  const { Pool } = loadOptionalPeer<typeof import("pg")>("pg", store);
  return {
    pool: new Pool({ connectionString: options.connectionString, ...settings }),
    owned: true,
  };
}

/**
 * Gives every client of `pool`, from its connection on and for as long as it
 * lives, a listener for its `error` event: pg emits it on a client with no
 * statement in flight (a session ended by a restart or `pg_terminate_backend`
 * between two statements, or as the pool hands the client over, before its
 * user listens), and an event nobody listens to ends the process. (Idle
 * clients' errors also reach the pool's own `error` event: listen there too.)
 */
export function guardPoolClients(pool: Pool, onError: (error: Error) => void): void {
  pool.on("connect", (client) => client.on("error", onError));
}

/** Options of {@link withPoolClient}. */
export interface PoolClientOptions {
  /**
   * Whether the client is destroyed, not put back, after `body` threw this
   * error (its connection may not have survived it). @default always
   */
  discardAfter?: ((error: unknown) => boolean) | undefined;
  /** Told of the client's connection lost while it was checked out. */
  onLost?: ((error: Error) => void) | undefined;
}

/**
 * Runs `body` on a client checked out of `pool`, listening for the
 * client's `error` event while it is out: a connection lost then fails the
 * statement, not the process (pg emits the event with nobody listening
 * otherwise). The client goes back to the pool on every way out, destroyed
 * when its connection was lost or `discardAfter` says so.
 */
export async function withPoolClient<T>(
  pool: Pool,
  body: (client: PoolClient) => Promise<T>,
  options: PoolClientOptions = {},
): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  let discard = false;
  const onError = (error: Error) => {
    lost = error;
    options.onLost?.(error);
  };
  client.on("error", onError);
  try {
    return await body(client);
  } catch (error) {
    discard = options.discardAfter?.(error) ?? true;
    throw error;
  } finally {
    client.off("error", onError);
    client.release(lost ?? discard);
  }
}
