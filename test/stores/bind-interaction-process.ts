/**
 * One process of the interaction-binding race: opens the store named by
 * `BIND_STORE` (`file`: `FileRunStore` on `BIND_DIRECTORY`; `postgres`:
 * `PostgresRunStore` on `BIND_DATABASE_URL`, schema `BIND_SCHEMA`), prints
 * `ready`, waits for a line on its input, then binds interaction `i_race`
 * of link `sl_race` to the question of run `BIND_RUN` and prints the outcome
 * as one JSON line (`asked`: that run).
 */

import { once } from "node:events";
import type { RunStore } from "../../src/agent/durable/run-store.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { PostgresRunStore } from "../../src/stores/postgres-run-store.js";

const environment = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const runId = environment("BIND_RUN");
const postgres =
  environment("BIND_STORE") === "postgres"
    ? new PostgresRunStore({
        connectionString: environment("BIND_DATABASE_URL"),
        schema: environment("BIND_SCHEMA"),
        poolSize: 1,
      })
    : undefined;
const store: RunStore = postgres ?? new FileRunStore({ directory: environment("BIND_DIRECTORY") });
// Tables made before the race, so every process's bind is one statement.
await postgres?.migrate();
process.stdout.write("ready\n");
await once(process.stdin, "data");
const outcome = await store.bindInteraction({
  approverLink: "sl_race",
  interactionId: "i_race",
  question: `sha256:question-of-${runId}`,
  runId,
});
process.stdout.write(`${JSON.stringify({ asked: runId, ...outcome })}\n`);
await postgres?.close();
process.stdin.destroy();
