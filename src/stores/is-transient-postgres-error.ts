/**
 * SQLSTATE codes that say the statement did not take effect and may be
 * sent again: the server is shutting down, restarting or not yet accepting
 * connections, the session was ended by an administrator, or the
 * transaction lost a serialization or deadlock race.
 */
const transientSqlStates = new Set([
  "57P01", // admin_shutdown (pg_terminate_backend, a fast shutdown)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down)
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "53300", // too_many_connections
  "55P03", // lock_not_available
]);

/** Socket errors of a connection that broke or could not be made. */
const transientSocketCodes = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
]);

/**
 * node-postgres reports a lost connection without a code, in these words
 * ("Connection terminated unexpectedly", "... due to connection timeout",
 * "Client has encountered a connection error and is not queryable").
 */
const lostConnectionMessage =
  /connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|client was closed and is not queryable/i;

/**
 * Whether a PostgreSQL failure is worth trying again: the connection was
 * lost or refused (class 08, a socket error, a server restart), the
 * session was ended (57P01-57P03), or the transaction lost a race (40001,
 * 40P01). Every statement of the run store is a compare-and-set or
 * idempotent, so sending it again is safe. Anything else (a constraint, a
 * syntax, a permission) fails at once.
 */
export function isTransientPostgresError(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") {
      if (code.startsWith("08") || transientSqlStates.has(code) || transientSocketCodes.has(code)) {
        return true;
      }
    }
    const errors = (cause as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.some((inner) => isTransientPostgresError(inner))) {
      return true;
    }
    const message = (cause as { message?: unknown }).message;
    if (typeof message === "string" && lostConnectionMessage.test(message)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
