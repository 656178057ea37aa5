import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { type OrdersSimulator, startOrdersSimulator } from "../../src/simulators/index.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { orderTools } from "../../src/tools/orders/order-tools.js";
import type { AnyTool } from "../../src/tools/tool.js";
import {
  argumentIssues,
  callTool,
  findTool,
  parsedArguments,
  toolContext,
} from "./tool-test-kit.js";

let orders: OrdersSimulator;
let client: OrderClient;
let tools: AnyTool[];

beforeAll(async () => {
  orders = await startOrdersSimulator();
  client = new OrderClient({ baseUrl: orders.url, token: orders.token, initialRetryDelayMs: 1 });
  tools = orderTools(client);
});

beforeEach(() => orders.reset());

afterAll(() => orders.close());

const unknownId = "9f9f9f9f-0000-4000-8000-000000000000";

function retiredIds(): string[] {
  return orders
    .callbacks()
    .filter((callback) => new URL(callback.url).hostname === retiredCallbackHost)
    .map((callback) => callback.id);
}

describe("list_callbacks", () => {
  it("lists every callback by default, with only the fields a model needs", async () => {
    const result = await callTool(tools, "list_callbacks", {});
    expect(result).toMatchObject({ total: 12, shown: 12, omitted: 0 });
    expect(result).not.toHaveProperty("note");
    const callbacks = result.callbacks as Array<Record<string, unknown>>;
    expect(callbacks).toHaveLength(12);
    for (const callback of callbacks) {
      expect(Object.keys(callback).sort()).toEqual(
        ["api_version", "created_at", "id", "message_type", "url"].sort(),
      );
    }
    expect(callbacks.map((callback) => callback.id)).toEqual(
      orders.callbacks().map((callback) => callback.id),
    );
  });

  it("never shows a callback's verification token, seeded or created with one", async () => {
    await client.createCallbacks([
      {
        url: "https://hooks.acme-shop.example/webhooks/new",
        message_type: "orderEvent",
        token: "whsec-verify-0123456789abcdef",
      },
    ]);
    const sealed = orders
      .callbacks()
      .flatMap((callback) => (callback.token ? [callback.token] : []));
    expect(sealed.length).toBeGreaterThan(5);

    const text = JSON.stringify(await callTool(tools, "list_callbacks", { message_type: "all" }));
    expect(text).not.toContain("whsec-verify");
    expect(text).not.toContain('"token"');
    for (const token of sealed) expect(text).not.toContain(token);
    expect(text).toContain("https://hooks.acme-shop.example/webhooks/new");
  });

  it("filters by message type", async () => {
    const result = await callTool(tools, "list_callbacks", { message_type: "orderEvent" });
    expect(result.total).toBe(2);
    expect(
      (result.callbacks as Array<{ message_type: string }>).every(
        (callback) => callback.message_type === "orderEvent",
      ),
    ).toBe(true);
    expect(orders.requests.at(-1)?.query).toEqual({ message_type: "orderEvent" });
  });

  it("trims a long list to 50 and says how many were left out and how to see them", async () => {
    for (let index = 0; index < 60; index++) {
      orders.state.callbacks.push({
        id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
        url: `https://bulk.example/hook/${index}`,
        message_type: "rmaEvent",
        api_version: "1.0",
        created_at: "2025-01-01T00:00:00Z",
        token: `enc_v1.bulk-secret-${index}`,
      });
    }
    const result = await callTool(tools, "list_callbacks", {});
    expect(result).toMatchObject({ total: 72, shown: 50, omitted: 22 });
    expect(result.callbacks).toHaveLength(50);
    expect(result.note).toMatch(/first 50 of 72.*one message_type at a time/);
    expect(JSON.stringify(result)).not.toContain("bulk-secret");
  });

  it("tells the model a hold type is not a callback type, naming the valid ones", () => {
    const [issue] = argumentIssues(tools, "list_callbacks", { message_type: "shipmentEvent" });
    expect(issue).toBe(
      'message_type: "shipmentEvent" is not a callback message type; use "all" or one of skuInventoryChange, orderEvent, orderUpdateResolution, orderCancelResolution, inboundShipmentEvent, rmaEvent, snapshotReady',
    );
  });

  it("offers the message types as an enum the model can read", () => {
    const schema = findTool(tools, "list_callbacks").parameters as {
      properties: { message_type: { enum: string[]; default: string } };
      additionalProperties: boolean;
    };
    expect(schema.properties.message_type.enum).toHaveLength(8);
    expect(schema.properties.message_type.default).toBe("all");
    expect(schema.additionalProperties).toBe(false);
  });
});

describe("create_callbacks", () => {
  it("registers callbacks and returns them without tokens", async () => {
    const result = await callTool(tools, "create_callbacks", {
      callbacks: [
        { url: "https://hooks.acme-shop.example/a", message_type: "rmaEvent" },
        {
          url: "https://hooks.acme-shop.example/b",
          message_type: "snapshotReady",
          api_version: "2.0",
        },
      ],
    });
    expect(result.count).toBe(2);
    expect(result.created).toEqual([
      expect.objectContaining({
        url: "https://hooks.acme-shop.example/a",
        message_type: "rmaEvent",
      }),
      expect.objectContaining({ url: "https://hooks.acme-shop.example/b", api_version: "2.0" }),
    ]);
    expect(orders.callbacks()).toHaveLength(14);
  });

  it("names every bad field of every callback, and sends nothing", () => {
    const before = orders.requests.length;
    const issues = argumentIssues(tools, "create_callbacks", {
      callbacks: [
        { url: "http://hooks.example.com/a", message_type: "orderEvent" },
        { url: "https://hooks.example.com/b", message_type: "shipmentEvent" },
        { url: "not a url", message_type: "orderEvent", token: "x" },
      ],
    });
    expect(issues).toEqual([
      "callbacks[0].url: must be an absolute https URL without credentials, e.g. https://hooks.example.com/orders",
      'callbacks[1].message_type: "shipmentEvent" is a hold type but not a callback message type (the two lists differ); use one of skuInventoryChange, orderEvent, orderUpdateResolution, orderCancelResolution, inboundShipmentEvent, rmaEvent, snapshotReady',
      "callbacks[2].url: must be an absolute https URL without credentials, e.g. https://hooks.example.com/orders",
      'callbacks[2]: Unrecognized key: "token"',
    ]);
    expect(argumentIssues(tools, "create_callbacks", { callbacks: [] })).toEqual([
      "callbacks: give at least one callback to register",
    ]);
    expect(orders.requests.length).toBe(before);
  });
});

describe("delete_callbacks", () => {
  it("deletes by id and reports each id's outcome in the order given", async () => {
    const [first, second] = retiredIds();
    const result = await callTool(tools, "delete_callbacks", {
      callback_ids: [first, unknownId, second],
    });
    expect(result).toEqual({
      deleted: 2,
      failed: 1,
      results: [
        { id: first, status: "success" },
        {
          id: unknownId,
          status: "failure",
          error_message: `callback ${unknownId} does not exist in this account`,
        },
        { id: second, status: "success" },
      ],
    });
    expect(orders.callbacks()).toHaveLength(10);
  });

  it("rejects ids that are not UUIDs and id lists out of bounds", () => {
    expect(
      argumentIssues(tools, "delete_callbacks", { callback_ids: ["cb-1", unknownId] }),
    ).toEqual([
      "callback_ids[0]: must be a UUID (8-4-4-4-12 hexadecimal digits) exactly as list_callbacks returns it",
    ]);
    expect(argumentIssues(tools, "delete_callbacks", { callback_ids: [] })).toEqual([
      "callback_ids: give at least one callback id to delete",
    ]);
    expect(
      argumentIssues(tools, "delete_callbacks", {
        callback_ids: Array.from({ length: 101 }, () => unknownId),
      }),
    ).toEqual(["callback_ids: at most 100 ids per call: split them over several calls"]);
    expect(argumentIssues(tools, "delete_callbacks", {})).toEqual([
      "callback_ids: Invalid input: expected array, received undefined",
    ]);
  });

  it("describes the deletion by URL and message type, naming ids that match nothing", async () => {
    const tool = findTool(tools, "delete_callbacks");
    const ids = retiredIds();
    const args = parsedArguments(tools, "delete_callbacks", {
      callback_ids: [ids[0], ids[1], ids[0]?.toUpperCase(), unknownId],
    });
    const description = await tool.describeAction?.(args, toolContext());
    expect(description).toEqual({
      summary:
        "Delete 3 callbacks: deliveries to these URLs stop at once and queued events are discarded",
      details: [
        { label: "orderEvent callback to", value: `https://${retiredCallbackHost}/acme/orders` },
        {
          label: "skuInventoryChange callback to",
          value: `https://${retiredCallbackHost}/acme/inventory`,
        },
        { label: "no callback has this id (nothing is deleted for it)", value: unknownId },
      ],
      irreversible: true,
    });
    expect(orders.requests.at(-1)).toMatchObject({
      method: "GET",
      path: "/callbacks",
      query: { message_type: "all" },
    });
  });

  it("says so in words for a single callback", async () => {
    const tool = findTool(tools, "delete_callbacks");
    const [id] = retiredIds();
    const description = await tool.describeAction?.({ callback_ids: [id] }, toolContext());
    expect(description?.summary).toBe(
      "Delete 1 callback: deliveries to this URL stop at once and queued events are discarded",
    );
  });

  it("still describes the ids when the callback list cannot be read", async () => {
    orders.failNext({ method: "GET", path: "/callbacks", status: 503, times: 5 });
    const tool = findTool(tools, "delete_callbacks");
    const description = await tool.describeAction?.({ callback_ids: [unknownId] }, toolContext());
    expect(description?.summary).toMatch(/^Delete 1 callback/);
    expect(description?.details?.[0]).toMatchObject({
      label: "the callback list could not be read, so only the ids are known",
      value: expect.stringMatching(/503/),
    });
    expect(description?.details?.[1]).toEqual({ label: "callback id", value: unknownId });
  });

  it("does not look anything up once the run is aborted", async () => {
    const tool = findTool(tools, "delete_callbacks");
    const controller = new AbortController();
    controller.abort();
    await expect(
      tool.describeAction?.({ callback_ids: [unknownId] }, toolContext(controller.signal)),
    ).rejects.toThrow(/abort/i);
  });
});

describe("callback holds", () => {
  it("lists, holds and releases hold types", async () => {
    expect(await callTool(tools, "list_callback_holds", {})).toEqual({ holds: ["shipmentEvent"] });
    expect(
      await callTool(tools, "hold_callbacks", { message_types: ["orderEvent", "inboundReceived"] }),
    ).toEqual({ holds: ["shipmentEvent", "orderEvent", "inboundReceived"] });
    expect(
      await callTool(tools, "release_callback_holds", { message_types: ["shipmentEvent"] }),
    ).toEqual({ holds: ["orderEvent", "inboundReceived"] });
    expect(orders.holds()).toEqual(["orderEvent", "inboundReceived"]);
  });

  it("tells the model a callback type is not a hold type", () => {
    expect(argumentIssues(tools, "hold_callbacks", { message_types: ["rmaEvent"] })).toEqual([
      'message_types[0]: "rmaEvent" is a callback message type but not a hold type (the two lists differ); use one of skuInventoryChange, orderEvent, shipmentEvent, inboundReceived',
    ]);
    expect(argumentIssues(tools, "release_callback_holds", { message_types: [] })).toEqual([
      "message_types: give at least one hold type: skuInventoryChange, orderEvent, shipmentEvent, inboundReceived",
    ]);
  });

  it("warns the approver that held events are lost", async () => {
    const tool = findTool(tools, "hold_callbacks");
    const description = await tool.describeAction?.(
      { message_types: ["orderEvent", "shipmentEvent"] },
      toolContext(),
    );
    expect(description).toEqual({
      summary:
        "Hold callback delivery of 2 message types: events of these types during the hold are never delivered, not even after the hold is released",
      details: [
        { label: "orderEvent: events stop being delivered and are lost" },
        { label: "shipmentEvent: events stop being delivered and are lost" },
      ],
      irreversible: true,
    });
  });
});
