/**
 * `switchyard-agents/postgres`: the run store for workers on many machines. A
 * subpath of its own, so that `import "switchyard-agents"` never loads `pg`.
 *
 * @module switchyard-agents/postgres
 */
export {
  type PostgresRetryOptions,
  PostgresRunStore,
  type PostgresRunStoreOptions,
} from "../stores/postgres-run-store.js";
