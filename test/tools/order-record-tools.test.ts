import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { type OrdersSimulator, startOrdersSimulator } from "../../src/simulators/index.js";
import { orderTools } from "../../src/tools/orders/order-tools.js";
import type { AnyTool } from "../../src/tools/tool.js";
import { argumentIssues, callTool, findTool, toolContext } from "./tool-test-kit.js";

let orders: OrdersSimulator;
let tools: AnyTool[];

beforeAll(async () => {
  orders = await startOrdersSimulator();
  tools = orderTools(
    new OrderClient({ baseUrl: orders.url, token: orders.token, initialRetryDelayMs: 1 }),
  );
});

beforeEach(() => orders.reset());

afterAll(() => orders.close());

describe("the list tools", () => {
  it("read a summary page of 50 by default and point at the next page", async () => {
    const result = await callTool(tools, "list_orders", {});
    expect(orders.requests.at(-1)).toMatchObject({
      method: "GET",
      path: "/orders",
      query: { limit: "50", offset: "0", list_type: "summary" },
    });
    expect(result).toMatchObject({ count: 50, offset: 0, limit: 50, next_offset: 50 });
    const items = result.items as Array<Record<string, unknown>>;
    expect(items).toHaveLength(50);
    expect(Object.keys(items[0] ?? {}).sort()).toEqual(
      ["created_at", "currency", "customer_identifier", "id", "status", "total"].sort(),
    );
  });

  it("point at the next page by the page size the service applied when it caps pages lower", async () => {
    const page = {
      limit: 20,
      offset: 0,
      list_type: "summary",
      data: Array.from({ length: 20 }, (_, index) => ({ customer_identifier: `ORD-${index}` })),
    };
    const capped = orderTools(
      new OrderClient({
        baseUrl: "https://orders.example/acme/api/v1",
        token: orders.token,
        fetch: async () => Response.json(page),
      }),
    );
    const result = await callTool(capped, "list_orders", { limit: 50 });
    expect(result).toMatchObject({ count: 20, limit: 50, next_offset: 20 });
  });

  it("end with next_offset null on the last page", async () => {
    const result = await callTool(tools, "list_orders", { limit: 100, offset: 200 });
    expect(result).toMatchObject({ count: 40, offset: 200, limit: 100, next_offset: null });
  });

  it("page through everything by following next_offset", async () => {
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = await callTool(tools, "list_orders", { limit: 100, offset });
      for (const item of page.items as Array<{ customer_identifier: string }>) {
        seen.push(item.customer_identifier);
      }
      offset = page.next_offset as number | null;
    }
    expect(new Set(seen).size).toBe(240);
  });

  it("pass filters to the service", async () => {
    const result = await callTool(tools, "list_orders", {
      filters: { status: "shipped" },
      list_type: "detail",
    });
    expect(orders.requests.at(-1)?.query).toMatchObject({ status: "shipped", list_type: "detail" });
    const items = result.items as Array<{ status: string }>;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((item) => item.status === "shipped")).toBe(true);
  });

  it.each([
    ["list_skus", "/skus"],
    ["list_inventory", "/inventory"],
    ["list_returns", "/returns"],
    ["list_inbound_shipments", "/inbound_shipments"],
    ["list_outbound_shipments", "/outbound_shipments"],
  ])("%s reads %s", async (name, path) => {
    const result = await callTool(tools, name, { limit: 5 });
    expect(orders.requests.at(-1)).toMatchObject({ method: "GET", path });
    expect(result).toMatchObject({ count: 5, limit: 5, next_offset: 5 });
  });

  it("explain paging mistakes in words the model can act on", () => {
    expect(
      argumentIssues(tools, "list_orders", {
        limit: 101,
        offset: -1,
        list_type: "full",
        filters: { limit: "5" },
      }),
    ).toEqual([
      "limit: must be at most 100: page with offset for more",
      "offset: must be at least 0",
      'list_type: must be "detail" or "summary"',
      "filters: limit, offset and list_type are parameters of their own, not filters",
    ]);
    expect(argumentIssues(tools, "list_skus", { limit: 0 })).toEqual(["limit: must be at least 1"]);
    expect(argumentIssues(tools, "list_skus", { limit: 2.5 })).toEqual([
      "limit: must be a whole number from 1 to 100",
    ]);
    expect(argumentIssues(tools, "list_skus", { filters: { status: 3 } })).toEqual([
      "filters.status: each filter value must be a string",
    ]);
  });

  it("scrub secrets that records happen to carry", async () => {
    const sku = orders.state.skus[0] as Record<string, unknown>;
    sku.api_key = "sk-live-abcdef0123456789";
    sku.notes = "integration uses Bearer abcdef.0123456789.secret";
    const result = await callTool(tools, "list_skus", { limit: 1, list_type: "detail" });
    const text = JSON.stringify(result);
    expect(text).not.toContain("sk-live-abcdef0123456789");
    expect(text).not.toContain("abcdef.0123456789.secret");
    expect((result.items as Array<Record<string, unknown>>)[0]?.api_key).toBe("[redacted]");
  });
});

describe("the order writes", () => {
  it("create orders and report each one, a failure not stopping the rest", async () => {
    const result = await callTool(tools, "create_orders", {
      orders: [
        { customer_identifier: "ORD-NEW-1", currency: "EUR" },
        { customer_identifier: "ORD-1000" },
        { customer_identifier: "ORD-NEW-2" },
      ],
    });
    expect(result).toEqual({
      records_submitted: 3,
      records_succeeded: 2,
      records_failed: 1,
      results: [
        { customer_identifier: "ORD-NEW-1", status: "success" },
        { customer_identifier: "ORD-1000", status: "failure", error_message: expect.any(String) },
        { customer_identifier: "ORD-NEW-2", status: "success" },
      ],
    });
    expect(orders.order("ORD-NEW-1")?.currency).toBe("EUR");
  });

  it("update orders, each item naming its changes", async () => {
    const result = await callTool(tools, "update_orders", {
      orders: [
        { customer_identifier: "ORD-1001", gift_message: "Happy birthday" },
        { customer_identifier: "ORD-9999", gift_message: "?" },
      ],
    });
    expect(result).toMatchObject({ records_submitted: 2, records_succeeded: 1, records_failed: 1 });
    expect((result.results as Array<Record<string, unknown>>)[1]).toEqual({
      customer_identifier: "ORD-9999",
      status: "failure",
      error_message: "order ORD-9999 does not exist",
    });
    expect(orders.order("ORD-1001")?.gift_message).toBe("Happy birthday");
  });

  it("reject items without an identifier or without a change", () => {
    expect(
      argumentIssues(tools, "update_orders", {
        orders: [{ customer_identifier: "ORD-1001" }, { gift_message: "x" }],
      }),
    ).toEqual([
      "orders[0]: no change given: add the fields to change next to customer_identifier",
      "orders[1].customer_identifier: must be a string: the order's customer_identifier, which matches it with its result",
    ]);
    expect(
      argumentIssues(tools, "create_orders", { orders: [{ customer_identifier: " " }] }),
    ).toEqual([
      "orders[0].customer_identifier: must not be empty: the order's customer_identifier, which matches it with its result",
    ]);
    expect(
      argumentIssues(tools, "cancel_orders", {
        customer_identifiers: Array.from({ length: 101 }, (_, index) => `ORD-${index}`),
      }),
    ).toEqual(["customer_identifiers: at most 100 orders per call: split them over several calls"]);
  });

  it("cancel orders by identifier", async () => {
    const open = orders.orders().find((order) => order.status === "created");
    expect(open).toBeDefined();
    const identifier = open?.customer_identifier as string;
    const result = await callTool(tools, "cancel_orders", {
      customer_identifiers: [identifier, "ORD-9999"],
    });
    expect(result).toEqual({
      records_submitted: 2,
      records_succeeded: 1,
      records_failed: 1,
      results: [
        { customer_identifier: identifier, status: "success" },
        {
          customer_identifier: "ORD-9999",
          status: "failure",
          error_message: "order ORD-9999 does not exist",
        },
      ],
    });
    expect(orders.order(identifier)?.status).toBe("canceled");
  });

  it("describe a cancellation with each order's state now, read from the service", async () => {
    const delivered = orders.orders().find((order) => order.status === "delivered")!;
    const created = orders.orders().find((order) => order.status === "created")!;
    const tool = findTool(tools, "cancel_orders");
    expect(
      await tool.describeAction?.(
        {
          customer_identifiers: [
            delivered.customer_identifier,
            created.customer_identifier,
            "ORD-9999",
            delivered.customer_identifier,
          ],
        },
        toolContext(),
      ),
    ).toEqual({
      summary:
        "Cancel 3 orders; the cancellation cannot be undone. Each order's state now is shown below",
      details: [
        { label: "order", value: delivered.customer_identifier },
        { label: "its state now", value: "delivered" },
        { label: "order", value: created.customer_identifier },
        { label: "its state now", value: "created" },
        { label: "no order has this identifier (nothing is cancelled for it)", value: "ORD-9999" },
      ],
      irreversible: true,
    });
  });

  it("say when an order's state cannot be read", async () => {
    orders.failNext({ method: "GET", path: "/orders", status: 400, times: 5 });
    const description = await findTool(tools, "cancel_orders").describeAction?.(
      { customer_identifiers: ["ORD-1001"] },
      toolContext(),
    );
    expect(description?.details).toEqual([
      { label: "order", value: "ORD-1001" },
      { label: "its state could not be read", value: expect.stringContaining("400") },
    ]);
  });
});
