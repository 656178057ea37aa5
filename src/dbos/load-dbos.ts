import type * as DbosSdk from "@dbos-inc/dbos-sdk";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";

/** The DBOS class of `@dbos-inc/dbos-sdk`. */
export type Dbos = typeof DbosSdk.DBOS;

/**
 * `@dbos-inc/dbos-sdk`, an optional peer dependency, loaded when a durable
 * agent is first built: only `switchyard-agents/dbos` needs it, and a
 * missing install is a ConfigurationError naming the line that adds it.
 */
export function loadDbos(): Dbos {
  return loadOptionalPeer<typeof DbosSdk>("@dbos-inc/dbos-sdk", "dbosAgent").DBOS;
}
