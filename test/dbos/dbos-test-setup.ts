import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import type { ApproverDirectory } from "../../src/agent/approval/approver-directory.js";
import type { Approver } from "../../src/agent/approver.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { type DbosAgent, type DbosAgentOptions, dbosAgent } from "../../src/dbos/index.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import type { ScriptedModel } from "../../src/testing/index.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";
import { conversationModel, dbosTestAgentOptions } from "./dbos-test-agent.js";

/** What a test file of the durable agent works with, set up before its tests. */
export interface DbosTestBed {
  durable: DbosAgent;
  model: ScriptedModel;
  messaging: MessagingSimulator;
  orders: OrdersSimulator;
  /** Registers a callback at the orders simulator; resolves with its id. */
  newCallback(): Promise<string>;
  /** The interaction id of the question the run waits on, once the run is suspended. */
  questionOf(runId: string): Promise<string>;
}

/**
 * Starts the simulators and a launched durable agent on the test database,
 * in schemas of the file's own, for the file's tests; shuts them down and
 * drops the schemas after them.
 */
export function useDbosTestBed(
  options: Omit<DbosAgentOptions, "databaseUrl"> & {
    pendingExpiresInSeconds?: number;
    /** Wraps the agent's approver (the messaging one), to change what it says. */
    wrapApprover?: (approver: Approver) => Approver;
    /** The server's URL, once its `beforeAll` ran. @default the test run's server */
    databaseUrl?: () => string;
    /** The agent's approver directory, made once the messaging simulator runs. */
    approverDirectory?: (messaging: MessagingSimulator) => ApproverDirectory;
  } = {},
): DbosTestBed {
  const databaseUrl = options.databaseUrl ?? testDatabaseUrl;
  const dbosSchema = uniqueSchema("dbos");
  const runStoreSchema = uniqueSchema("dbos_runs");
  const bed = {} as DbosTestBed;
  beforeAll(async () => {
    const [messaging, orders] = await Promise.all([
      startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
      startOrdersSimulator(),
    ]);
    const {
      pendingExpiresInSeconds,
      wrapApprover,
      databaseUrl: _,
      approverDirectory,
      ...dbosOptions
    } = options;
    const model = conversationModel();
    const agentOptions = dbosTestAgentOptions(
      {
        ordersUrl: orders.url,
        ordersToken: orders.token,
        messagingUrl: messaging.url,
        messagingToken: messaging.token ?? "",
        approverLinkId: messaging.approverLinkId,
      },
      model,
      undefined,
      pendingExpiresInSeconds,
    );
    const durable = dbosAgent(
      {
        ...agentOptions,
        ...(wrapApprover && agentOptions.approver
          ? { approver: wrapApprover(agentOptions.approver) }
          : {}),
        ...(approverDirectory ? { approverDirectory: approverDirectory(messaging) } : {}),
      },
      {
        checkSchedule: false,
        ...dbosOptions,
        databaseUrl: databaseUrl(),
        dbosSchema,
        runStoreSchema,
      },
    );
    Object.assign(bed, {
      durable,
      model,
      messaging,
      orders,
      newCallback: async () => {
        const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
        const [created] = await client.createCallbacks([
          { url: `https://hooks.example.com/dbos/${randomUUID()}`, message_type: "orderEvent" },
        ]);
        return created?.id ?? "";
      },
      questionOf: async (runId: string) => {
        for (let tries = 0; tries < 3_000; tries += 1) {
          const state = await durable.runStore.load(runId).catch(() => undefined);
          const interactionId = state?.pendingCalls[0]?.interactionId;
          if (state?.status === "suspended" && interactionId) return interactionId;
          await sleep(10);
        }
        throw new Error(`gave up waiting for run ${runId} to wait for its answer`);
      },
    });
    await durable.launch();
  });
  afterAll(async () => {
    await bed.durable?.shutdown();
    await Promise.all([bed.messaging?.close(), bed.orders?.close()]);
    const admin = new pg.Client({ connectionString: databaseUrl() });
    await admin.connect();
    try {
      for (const schema of [dbosSchema, runStoreSchema]) {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      }
    } finally {
      await admin.end();
    }
  });
  return bed;
}
