import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { type DbosAgent, dbosAgent } from "../../src/dbos/index.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import type { ScriptedModel } from "../../src/testing/index.js";
import { testDatabaseUrl, uniqueSchema } from "../helpers/postgres-test-database.js";
import { conversationModel, dbosTestAgentOptions } from "./dbos-test-agent.js";

let messaging: MessagingSimulator;
let orders: OrdersSimulator;
let durable: DbosAgent;
let model: ScriptedModel;
const dbosSchema = uniqueSchema("dbos");
const runStoreSchema = uniqueSchema("dbos_runs");

beforeAll(async () => {
  [messaging, orders] = await Promise.all([
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
    startOrdersSimulator(),
  ]);
  model = conversationModel();
  durable = dbosAgent(
    dbosTestAgentOptions(
      {
        ordersUrl: orders.url,
        ordersToken: orders.token,
        messagingUrl: messaging.url,
        messagingToken: messaging.token ?? "",
        approverLinkId: messaging.approverLinkId,
      },
      model,
    ),
    { databaseUrl: testDatabaseUrl(), dbosSchema, runStoreSchema, checkSchedule: false },
  );
  await durable.launch();
});

afterAll(async () => {
  await durable?.shutdown();
  await Promise.all([messaging?.close(), orders?.close()]);
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  try {
    for (const schema of [dbosSchema, runStoreSchema]) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  } finally {
    await admin.end();
  }
});

/** The interaction id of the question the run waits on, once the run is suspended. */
async function questionOf(runId: string): Promise<string> {
  for (let tries = 0; tries < 3_000; tries += 1) {
    const state = await durable.runStore.load(runId).catch(() => undefined);
    const interactionId = state?.pendingCalls[0]?.interactionId;
    if (state?.status === "suspended" && interactionId) return interactionId;
    await sleep(10);
  }
  throw new Error(`gave up waiting for run ${runId} to wait for its answer`);
}

it("runs an approved call once and a denied call never, each run a DBOS workflow woken by the check of pending approvals", async () => {
  const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
  const [approvedId = "", deniedId = ""] = (
    await client.createCallbacks(
      ["approved", "denied"].map((label) => ({
        url: `https://hooks.example.com/dbos/${label}-${randomUUID()}`,
        message_type: "orderEvent",
      })),
    )
  ).map((callback) => callback.id);
  orders.clearRequests();

  const approved = await durable.start(`Delete callback ${approvedId}.`);
  const denied = await durable.start(`Delete callback ${deniedId}.`);
  const [approvedQuestion, deniedQuestion] = await Promise.all([
    questionOf(approved.runId),
    questionOf(denied.runId),
  ]);
  // Nobody answered yet: the check wakes no run.
  expect(await durable.checkApprovals()).toEqual([]);

  messaging.answerInteraction(approvedQuestion, "approve");
  messaging.answerInteraction(deniedQuestion, "deny");
  expect((await durable.checkApprovals()).sort()).toEqual([approved.runId, denied.runId].sort());

  expect(await approved.result()).toEqual({
    runId: approved.runId,
    status: "completed",
    output: "Done.",
  });
  expect(await denied.result()).toEqual({
    runId: denied.runId,
    status: "completed",
    output: "Done.",
  });

  const deletions = orders.requests
    .filter((request) => request.method === "DELETE" && request.path === "/callbacks")
    .map((request) => request.body);
  expect(deletions).toEqual([[approvedId]]);
  expect(orders.callbacks().map((callback) => callback.id)).toContain(deniedId);
  expect(orders.callbacks().map((callback) => callback.id)).not.toContain(approvedId);
  // Each run asked the model twice: the call, then the answer after the tool's result.
  expect(model.requests).toHaveLength(4);
  const deniedState = await durable.runStore.load(denied.runId);
  expect(deniedState.finishedCalls?.map((call) => call.status)).toEqual(["refused"]);
});

it("wake(runId) has a run read its answer at once", async () => {
  const client = new OrderClient({ baseUrl: orders.url, token: orders.token });
  const [created] = await client.createCallbacks([
    { url: `https://hooks.example.com/dbos/woken-${randomUUID()}`, message_type: "orderEvent" },
  ]);
  const id = created?.id ?? "";
  const run = await durable.start(`Delete callback ${id}.`);
  messaging.answerInteraction(await questionOf(run.runId), "approve");
  // No scheduled check, and the run would read its question again in an hour: wake() alone ends the wait.
  await durable.wake(run.runId);
  expect(await durable.retrieve(run.runId).result()).toEqual({
    runId: run.runId,
    status: "completed",
    output: "Done.",
  });
  expect(orders.callbacks().map((callback) => callback.id)).not.toContain(id);
});

it("rejects options it cannot use, naming each problem", () => {
  expect(() =>
    dbosAgent(
      { model, runStore: durable.runStore },
      { databaseUrl: "mysql://nowhere", name: "no spaces allowed", checksPerRound: 0 },
    ),
  ).toThrow(
    /leave runStore out[\s\S]*databaseUrl must be a PostgreSQL connection string[\s\S]*name must be[\s\S]*checksPerRound/,
  );
});
