/**
 * `switchyard-agents/dbos`: durable runs on DBOS Transact. A subpath of its
 * own, so that `import "switchyard-agents"` never loads `@dbos-inc/dbos-sdk`.
 *
 * @module switchyard-agents/dbos
 */
export {
  DbosAgent,
  type DbosAgentOptions,
  type DbosRunHandle,
  type DbosRunOutcome,
  dbosAgent,
} from "./dbos-agent.js";
