/**
 * `switchyard-agents/postgres`: the run store and the audit log for workers on many machines. A
 * subpath of its own, so that `import "switchyard-agents"` never loads `pg`.
 *
 * @module switchyard-agents/postgres
 */
export { PostgresAuditLog, type PostgresAuditLogOptions } from "../stores/postgres-audit-log.js";
export {
  PostgresRunStore,
  type PostgresRunStoreOptions,
} from "../stores/postgres-run-store.js";
