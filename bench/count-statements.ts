import pg from "pg";

let statements = 0;
let counting = false;

/**
 * Counts, from now on, every statement any PostgreSQL connection of this
 * process sends (`pg`'s `Client.prototype.query`, which pools, listening
 * connections, transactions' `BEGIN` and `COMMIT`, the run store and DBOS
 * all go through): one round trip each. Returns the count so far. Counted
 * on the client side, per process, so that the bench's own queries (copying
 * runs in, counting the finished ones) and the other processes sharing the
 * server are not counted; `pg_stat_statements` is not available on every
 * server, and `pg_stat_database` counts transactions, not statements.
 */
export function countStatements(): () => number {
  if (!counting) {
    counting = true;
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      statements++;
      return (query as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof query;
  }
  return () => statements;
}
