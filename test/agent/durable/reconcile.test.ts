import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import type { RunStore } from "../../../src/agent/durable/run-store.js";
import { runCli } from "../../../src/cli/run-cli.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { type OrdersSimulator, startOrdersSimulator } from "../../../src/simulators/index.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { orderTools } from "../../../src/tools/orders/order-tools.js";
import type { AnyTool } from "../../../src/tools/tool.js";
import { createTestIo } from "../../cli/cli-test-io.js";
import { captureLogger } from "../../helpers/capture-logger.js";
import { toolMessagesById, useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();
let orders: OrdersSimulator;
beforeAll(async () => {
  orders = await startOrdersSimulator();
});
afterAll(() => orders.close());
beforeEach(() => orders.reset());

const client = () => new OrderClient({ baseUrl: orders.url, token: orders.token });
const deletionRequests = () =>
  orders.requests.filter((request) => request.method === "DELETE" && request.path === "/callbacks");

/**
 * Leaves run `runId` in `store` as a worker killed during its approved
 * call leaves it: the call `started`, no result. `reached` says how far the
 * call got at the service before the process died: none of the ids, or
 * the first `n` deleted.
 */
async function killedDuringCall(
  store: RunStore,
  runId: string,
  toolName: string,
  args: Record<string, unknown>,
  atService: (tools: AnyTool[]) => Promise<void>,
): Promise<void> {
  let atCall: RunState | undefined;
  const tools = orderTools(client()).map((tool) =>
    tool.name === toolName
      ? {
          ...tool,
          execute: async () => {
            atCall = await store.load(runId);
            await atService(orderTools(client()));
            return {};
          },
        }
      : tool,
  );
  const run = await new Agent({
    model: new ScriptedModel([
      { toolCalls: [{ name: toolName, arguments: args, id: "call_1" }] },
      { text: "done" },
    ]),
    tools,
    approver: new ScriptedApprover(["approve"]),
    runStore: store,
  }).run("do it", { runId });
  if (!atCall) {
    throw new Error(`${toolName} did not run: ${JSON.stringify(run.steps[0]?.toolCalls[0])}`);
  }
  await store.save(atCall);
}

async function resumeWithOrderTools(
  store: RunStore,
  runId: string,
  tools: AnyTool[] = orderTools(client()),
) {
  const { logger, text } = captureLogger("info");
  const model = new ScriptedModel([{ text: "Checked." }]);
  const result = await new Agent({
    model,
    tools,
    approver: new ScriptedApprover([]),
    runStore: store,
    logger,
  }).resume(runId, { takeOver: true });
  const told = toolMessagesById(model.requests[0]?.messages ?? []).call_1 as Record<
    string,
    unknown
  >;
  return { result, told, log: text };
}

describe("a call interrupted after its start record is reconciled with the service, not left unknown", () => {
  it("delete_callbacks: ids already gone are reported deleted, ids still there are deleted now, once", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    const [first, second, third] = orders.callbacks().map((callback) => callback.id);
    const ids = [first ?? "", second ?? "", third ?? ""];
    // The process died after the service deleted the first id only.
    await killedDuringCall(store, "cut-1", "delete_callbacks", { callback_ids: ids }, async () => {
      await client().deleteCallbacks([ids[0] ?? ""]);
    });
    orders.clearRequests();

    const { result, told, log } = await resumeWithOrderTools(store, "cut-1");
    expect(result.status).toBe("completed");
    expect(result.outcomeUnknownCalls).toBeUndefined();
    const remaining = new Set(orders.callbacks().map((callback) => callback.id));
    expect(ids.filter((id) => remaining.has(id))).toEqual([]);
    // Only the two still there were sent, in one request.
    expect(deletionRequests().map((request) => request.body)).toEqual([[ids[1], ids[2]]]);

    const record = result.steps.flatMap((step) => step.toolCalls)[0];
    expect(record?.status).toBe("reconciled");
    expect(told).toMatchObject({
      reconciled: true,
      result: {
        deleted: 3,
        failed: 0,
        results: [
          { id: ids[0], status: "success", reconciled: "already_gone" },
          { id: ids[1], status: "success", reconciled: "deleted_now" },
          { id: ids[2], status: "success", reconciled: "deleted_now" },
        ],
      },
    });
    expect(String(told.message)).toContain("1 of the 3 callbacks were already gone");
    expect(JSON.stringify(told)).not.toContain("outcome_unknown");

    const saved = await store.load("cut-1");
    expect(saved.finishedCalls?.map((call) => call.status)).toEqual(["reconciled"]);
    expect((await store.list()).runs[0]?.outcomeUnknownCalls).toBeUndefined();
    const audit = log()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.audit === "tool-call");
    expect(audit).toEqual([
      expect.objectContaining({ tool: "delete_callbacks", outcome: "reconciled" }),
    ]);

    // runs show says so too.
    const shown = createTestIo({ env: { SWITCHYARD_STATE_DIR: directory } });
    expect(await runCli(["runs", "show", "cut-1"], shown.io)).toBe(0);
    expect(shown.stdout()).toMatch(/step 1 {2}delete_callbacks .* {2}reconciled {2}\[call_1\]/);
  });

  it("delete_callbacks: a call that never reached the service deletes every id now", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const ids = orders
      .callbacks()
      .slice(0, 2)
      .map((callback) => callback.id);
    await killedDuringCall(
      store,
      "cut-2",
      "delete_callbacks",
      { callback_ids: ids },
      async () => {},
    );
    const { result, told } = await resumeWithOrderTools(store, "cut-2");
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("reconciled");
    expect(String(told.message)).toContain("0 of the 2 callbacks were already gone");
    const remaining = new Set(orders.callbacks().map((callback) => callback.id));
    expect(ids.some((id) => remaining.has(id))).toBe(false);
  });

  it("hold_callbacks: the holds already in place are not asked again; the missing ones are held now", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    expect(orders.holds()).toEqual(["shipmentEvent"]);
    await killedDuringCall(
      store,
      "cut-3",
      "hold_callbacks",
      { message_types: ["shipmentEvent", "orderEvent"] },
      async () => {},
    );
    orders.clearRequests();
    const { result, told } = await resumeWithOrderTools(store, "cut-3");
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("reconciled");
    expect([...orders.holds()].sort()).toEqual(["orderEvent", "shipmentEvent"]);
    const holdRequests = orders.requests.filter(
      (request) => request.method === "POST" && request.path === "/callback_holds",
    );
    expect(holdRequests.map((request) => request.body)).toEqual([["orderEvent"]]);
    expect(String(told.message)).toContain("1 of the 2 holds were already in place; 1 held now");
  });

  it("create_callbacks: callbacks the cut call registered are not registered again; a call that never reached the service registers them now", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const wanted = [
      { url: "https://hooks.example.com/reconcile/a", message_type: "orderEvent" as const },
      { url: "https://hooks.example.com/reconcile/b", message_type: "orderEvent" as const },
    ];
    const posts = () =>
      orders.requests.filter(
        (request) => request.method === "POST" && request.path === "/callbacks",
      );
    await killedDuringCall(store, "cut-5", "create_callbacks", { callbacks: wanted }, async () => {
      await client().createCallbacks(wanted);
    });
    orders.clearRequests();
    const reached = await resumeWithOrderTools(store, "cut-5");
    expect(reached.result.steps[0]?.toolCalls[0]?.status).toBe("reconciled");
    expect(posts()).toEqual([]);
    expect(String(reached.told.message)).toContain("2 of the 2 callbacks were already registered");

    orders.reset();
    // A store of its own: the scripted approver names its interactions alike in every run.
    const other = new FileRunStore({ directory: await makeDirectory() });
    await killedDuringCall(
      other,
      "cut-6",
      "create_callbacks",
      { callbacks: wanted },
      async () => {},
    );
    orders.clearRequests();
    const notReached = await resumeWithOrderTools(other, "cut-6");
    expect(notReached.told).toMatchObject({ reconciled: true, result: { count: 2 } });
    expect(posts()).toHaveLength(1);
    const registered = orders
      .callbacks()
      .filter((callback) => callback.url.includes("/reconcile/"));
    expect(registered.map((callback) => callback.url).sort()).toEqual(wanted.map((w) => w.url));
  });

  it("a tool that now acts elsewhere (another target) is not reconciled: nothing runs that nobody approved", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const ids = [orders.callbacks()[0]?.id ?? ""];
    await killedDuringCall(
      store,
      "cut-7",
      "delete_callbacks",
      { callback_ids: ids },
      async () => {},
    );
    orders.clearRequests();
    let reconciled = 0;
    const redeployed = orderTools(client()).map((tool) =>
      tool.name === "delete_callbacks"
        ? {
            ...tool,
            target: { service: "orders", account: "another-account" },
            reconcile: async () => {
              reconciled++;
              return undefined;
            },
          }
        : tool,
    );
    const { result, told } = await resumeWithOrderTools(store, "cut-7", redeployed);
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("outcome_unknown");
    expect(told).toMatchObject({ error: "outcome_unknown" });
    expect(reconciled).toBe(0);
    expect(deletionRequests()).toEqual([]);
  });

  it("a tool that cannot tell (the service fails) leaves the call of unknown outcome, and runs nothing", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const ids = [orders.callbacks()[0]?.id ?? ""];
    await killedDuringCall(
      store,
      "cut-4",
      "delete_callbacks",
      { callback_ids: ids },
      async () => {},
    );
    orders.failNext({ method: "GET", path: "/callbacks", status: 500, times: 10 });
    orders.clearRequests();
    const { result, told } = await resumeWithOrderTools(store, "cut-4");
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("outcome_unknown");
    expect(told).toMatchObject({ error: "outcome_unknown" });
    expect(deletionRequests()).toEqual([]);
    expect(orders.callbacks().some((callback) => callback.id === ids[0])).toBe(true);
  });
});
