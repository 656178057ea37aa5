import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type OrdersSimulator,
  startOrdersSimulator,
} from "../../src/simulators/orders/orders-simulator.js";

let orders: OrdersSimulator;
beforeAll(async () => {
  orders = await startOrdersSimulator();
});
afterAll(async () => {
  await orders.close();
});
beforeEach(() => {
  orders.reset();
});

interface ErrorBody {
  error: { code: string; message: string };
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  token: string | null = orders.token,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${orders.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? JSON.parse(text) : undefined,
    headers: response.headers,
  };
}

describe("orders simulator: authentication", () => {
  it("serves under /{accountSlug}/api/v1 on 127.0.0.1", () => {
    expect(orders.url).toBe(`http://${orders.host}/acme-sandbox/api/v1`);
    expect(orders.token.startsWith("eyJ")).toBe(true);
  });

  it("refuses requests without a valid bearer token with a 401 JSON error", async () => {
    const missing = await call("GET", "/callbacks", undefined, null);
    expect(missing.status).toBe(401);
    expect((missing.body as ErrorBody).error.code).toBe("unauthorized");
    const forged = await call("GET", "/callbacks", undefined, `${orders.token}x`);
    expect(forged.status).toBe(401);
  });

  it("issues JWT-shaped tokens from POST /secrets, with or without a header, never carrying the phrase", async () => {
    const withoutHeader = await call(
      "POST",
      "/secrets",
      { secret_phrase: "blue harbour lantern" },
      null,
    );
    expect(withoutHeader.status).toBe(200);
    const token = (withoutHeader.body as { encrypted_token: string }).encrypted_token;
    expect(token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    const payload = Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8");
    expect(payload).not.toContain("blue harbour lantern");
    expect((await call("GET", "/callback_holds", undefined, token)).status).toBe(200);

    const withHeader = await call("POST", "/secrets", { secret_phrase: "second phrase" });
    expect(withHeader.status).toBe(200);
    expect((await call("POST", "/secrets", {}, null)).status).toBe(400);
  });

  it("DELETE /secrets invalidates every token of that phrase and 404s an unknown phrase", async () => {
    const first = orders.issueToken("rotating phrase");
    const second = orders.issueToken("rotating phrase");
    const deleted = await call("DELETE", "/secrets", { secret_phrase: "rotating phrase" });
    expect(deleted).toMatchObject({ status: 200, body: { status: "success" } });
    expect((await call("GET", "/callbacks", undefined, first)).status).toBe(401);
    expect((await call("GET", "/callbacks", undefined, second)).status).toBe(401);
    expect((await call("GET", "/callbacks")).status).toBe(200);
    expect((await call("DELETE", "/secrets", { secret_phrase: "rotating phrase" })).status).toBe(
      404,
    );
    const reissued = orders.issueToken("rotating phrase");
    expect((await call("GET", "/callbacks", undefined, reissued)).status).toBe(200);
    expect((await call("GET", "/callbacks", undefined, first)).status).toBe(401);
  });

  it("refuses a token issued by another simulator instance", async () => {
    const production = await startOrdersSimulator();
    try {
      expect((await call("GET", "/callbacks", undefined, production.token)).status).toBe(401);
    } finally {
      await production.close();
    }
  });
});

describe("orders simulator: callbacks", () => {
  it("lists the seeded callbacks, four of them on the retired host", async () => {
    const { status, body } = await call("GET", "/callbacks?message_type=all");
    expect(status).toBe(200);
    const callbacks = body as {
      id: string;
      url: string;
      message_type: string;
      created_at: string;
    }[];
    expect(callbacks).toHaveLength(12);
    expect(
      callbacks.filter(
        (callback) => new URL(callback.url).hostname === "hooks.old-warehouse.example",
      ),
    ).toHaveLength(4);
    expect(new Set(callbacks.map((callback) => callback.message_type)).size).toBe(7);
    for (const callback of callbacks) {
      expect(callback.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number.isNaN(Date.parse(callback.created_at))).toBe(false);
    }
    const defaulted = await call("GET", "/callbacks");
    expect(defaulted.body).toEqual(body);
  });

  it("filters by message type and rejects an invalid type naming the valid ones", async () => {
    const { body } = await call("GET", "/callbacks?message_type=rmaEvent");
    expect((body as { message_type: string }[]).map((callback) => callback.message_type)).toEqual([
      "rmaEvent",
      "rmaEvent",
    ]);
    const invalid = await call("GET", "/callbacks?message_type=shipmentEvent");
    expect(invalid.status).toBe(400);
    expect((invalid.body as ErrorBody).error.message).toContain("orderCancelResolution");
  });

  it("creates callbacks with new ids and stores the token only in sealed form", async () => {
    const { status, body } = await call("POST", "/callbacks", [
      {
        url: "https://hooks.new-warehouse.example/acme/orders",
        message_type: "orderEvent",
        token: "plain-verify",
      },
    ]);
    expect(status).toBe(200);
    const [created] = body as {
      id: string;
      token: string;
      api_version: string;
      created_at: string;
    }[];
    expect(created?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created?.token).toBeDefined();
    expect(created?.token).not.toContain("plain-verify");
    expect(created?.api_version).toBe("1.0");
    expect(orders.callbacks()).toHaveLength(13);
  });

  it("creates nothing when one callback is invalid, naming the problem", async () => {
    const { status, body } = await call("POST", "/callbacks", [
      { url: "https://ok.example/hook", message_type: "orderEvent" },
      { url: "http://insecure.example/hook", message_type: "orderEvent" },
    ]);
    expect(status).toBe(400);
    expect((body as ErrorBody).error.message).toContain("[1].url");
    expect(orders.callbacks()).toHaveLength(12);
  });

  it("deletes with an array body, one entry per id in order, with per-id failures", async () => {
    const [first, second] = orders.callbacks();
    const unknown = "00000000-0000-4000-8000-000000000000";
    const { status, body } = await call("DELETE", "/callbacks", [
      first?.id,
      "not-a-uuid",
      unknown,
      second?.id,
    ]);
    expect(status).toBe(200);
    expect(body).toEqual({
      deleted: [
        { id: first?.id, status: "success" },
        { id: "not-a-uuid", status: "failure", error_message: "not a valid UUID" },
        {
          id: unknown,
          status: "failure",
          error_message: expect.stringContaining("does not exist"),
        },
        { id: second?.id, status: "success" },
      ],
    });
    const remaining = orders.callbacks().map((callback) => callback.id);
    expect(remaining).toHaveLength(10);
    expect(remaining).not.toContain(first?.id);
  });

  it("deletes with the {callback_ids} body form and reports an id deleted twice", async () => {
    const [first] = orders.callbacks();
    const once = await call("DELETE", "/callbacks", { callback_ids: [first?.id] });
    expect(once.body).toEqual({ deleted: [{ id: first?.id, status: "success" }] });
    const twice = await call("DELETE", "/callbacks", { callback_ids: [first?.id] });
    expect(twice.body).toEqual({
      deleted: [
        {
          id: first?.id,
          status: "failure",
          error_message: expect.stringContaining("already deleted"),
        },
      ],
    });
    expect((await call("DELETE", "/callbacks", { ids: [] })).status).toBe(400);
  });
});

describe("orders simulator: holds", () => {
  it("starts with a shipmentEvent hold, adds and removes holds, and answers the active ones", async () => {
    expect((await call("GET", "/callback_holds")).body).toEqual({ holds: ["shipmentEvent"] });
    expect((await call("POST", "/callback_holds", ["orderEvent"])).body).toEqual({
      holds: ["shipmentEvent", "orderEvent"],
    });
    expect((await call("DELETE", "/callback_holds", ["shipmentEvent"])).body).toEqual({
      holds: ["orderEvent"],
    });
    expect(orders.holds()).toEqual(["orderEvent"]);
  });

  it("rejects callback types that are not hold types, naming the valid ones", async () => {
    const { status, body } = await call("POST", "/callback_holds", ["orderEvent", "rmaEvent"]);
    expect(status).toBe(400);
    expect((body as ErrorBody).error.message).toContain("inboundReceived");
    expect(orders.holds()).toEqual(["shipmentEvent"]);
  });
});

describe("orders simulator: lists", () => {
  it("answers the list envelope with the default limit", async () => {
    const { body } = await call("GET", "/skus");
    expect(body).toMatchObject({ limit: 20, offset: 0, list_type: "detail" });
    expect((body as { data: unknown[] }).data).toHaveLength(20);
  });

  it.each([
    ["limit=0"],
    ["limit=101"],
    ["limit=abc"],
    ["limit=2.5"],
    ["offset=-1"],
    ["list_type=full"],
  ])("rejects %s with a 400 error body", async (query) => {
    const { status, body } = await call("GET", `/orders?${query}`);
    expect(status).toBe(400);
    expect((body as ErrorBody).error.message).toMatch(/limit|offset|list_type/);
  });

  it("pages through all 240 orders without gaps or repeats", async () => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const { body } = await call("GET", `/orders?limit=100&offset=${offset}&list_type=summary`);
      const page = (body as { data: { customer_identifier: string }[] }).data;
      seen.push(...page.map((order) => order.customer_identifier));
      if (page.length < 100) break;
    }
    expect(seen).toHaveLength(240);
    expect(new Set(seen).size).toBe(240);
    expect(seen).toContain("ORD-1042");
  });

  it("returns fewer fields in summary and filters by field equality", async () => {
    const detail = await call("GET", "/orders?limit=1&list_type=detail");
    const summary = await call("GET", "/orders?limit=1&list_type=summary");
    const detailKeys = Object.keys((detail.body as { data: object[] }).data[0] ?? {});
    const summaryKeys = Object.keys((summary.body as { data: object[] }).data[0] ?? {});
    expect(summaryKeys).toEqual(expect.arrayContaining(["customer_identifier", "status"]));
    expect(summaryKeys.length).toBeLessThan(detailKeys.length);

    const shipped = await call("GET", "/orders?status=shipped&limit=100");
    const expected = orders.orders().filter((order) => order.status === "shipped").length;
    const data = (shipped.body as { data: { status: string }[] }).data;
    expect(data).toHaveLength(expected);
    expect(data.every((order) => order.status === "shipped")).toBe(true);

    const unknown = await call("GET", "/orders?state=shipped");
    expect(unknown.status).toBe(400);
    expect((unknown.body as ErrorBody).error.message).toContain("status");
  });

  it("has realistic seeded data in every list", () => {
    const statuses = new Set(orders.orders().map((order) => order.status));
    expect(statuses).toEqual(new Set(["created", "shipped", "delivered", "canceled"]));
    expect(orders.skus()).toHaveLength(40);
    expect(orders.inventory()).toHaveLength(40);
    expect(orders.returns()).toHaveLength(25);
    expect(orders.inboundShipments()).toHaveLength(30);
    expect(orders.outboundShipments()).toHaveLength(60);
    expect(orders.order("ORD-1042")).toMatchObject({ currency: "USD", total: expect.any(Number) });
  });

  it("builds the same data and ids from the same seed", async () => {
    const again = await startOrdersSimulator();
    try {
      expect(again.callbacks()).toEqual(orders.callbacks());
      expect(again.orders()).toEqual(orders.orders());
    } finally {
      await again.close();
    }
  });
});

describe("orders simulator: ids of new records", () => {
  /** The id the simulator gives a new order ORD-9000. */
  async function createdOrderId(simulator: OrdersSimulator): Promise<string> {
    const response = await fetch(`${simulator.url}/orders`, {
      method: "POST",
      headers: { authorization: `Bearer ${simulator.token}`, "content-type": "application/json" },
      body: JSON.stringify([
        { customer_identifier: "ORD-9000", lines: [{ sku: "SKU-1001", quantity: 1 }] },
      ]),
    });
    expect(response.status).toBe(200);
    return simulator.order("ORD-9000")!.id;
  }

  it("are fresh on every start, and equal for equal seeds", async () => {
    const started = await Promise.all([
      startOrdersSimulator(),
      startOrdersSimulator(),
      startOrdersSimulator({ seed: 20250602 }),
      startOrdersSimulator({ seed: 20250602 }),
    ]);
    try {
      const [fresh, other, seeded, sameSeed] = await Promise.all(started.map(createdOrderId));
      expect(fresh).not.toBe(other);
      expect(seeded).toBe(sameSeed);
    } finally {
      await Promise.all(started.map((simulator) => simulator.close()));
    }
  });
});

describe("orders simulator: batches", () => {
  it("creates each order on its own: a bad or duplicate item fails alone", async () => {
    const { status, body } = await call("POST", "/orders", [
      {
        customer_identifier: "ORD-9000",
        lines: [{ sku: "SKU-1001", quantity: 2 }],
        gift_note: "kept",
      },
      { lines: [] },
      { customer_identifier: "ORD-1042" },
      { customer_identifier: "ORD-9001", lines: [{ sku: "SKU-0000", quantity: 1 }] },
    ]);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      records_submitted: 4,
      records_processed: 4,
      records_succeeded: 1,
      records_failed: 3,
      results: [
        { customer_identifier: "ORD-9000", status: "success" },
        {
          customer_identifier: "",
          status: "failure",
          error_message: expect.stringContaining("customer_identifier"),
        },
        {
          customer_identifier: "ORD-1042",
          status: "failure",
          error_message: expect.stringContaining("already exists"),
        },
        {
          customer_identifier: "ORD-9001",
          status: "failure",
          error_message: expect.stringContaining("SKU-0000"),
        },
      ],
    });
    expect(orders.order("ORD-9000")).toMatchObject({
      status: "created",
      total: 48,
      gift_note: "kept",
    });
  });

  it("refuses a batch larger than the maximum with 413 and processes nothing", async () => {
    const items = Array.from({ length: 101 }, (_, index) => ({
      customer_identifier: `ORD-8${index}`,
    }));
    const { status, body } = await call("POST", "/orders", items);
    expect(status).toBe(413);
    expect((body as ErrorBody).error.message).toContain("100");
    expect(orders.order("ORD-80")).toBeUndefined();
  });

  it("creates SKUs, returns and inbound shipments through the same envelope", async () => {
    const skus = await call("POST", "/skus", [
      { customer_identifier: "SKU-2001", name: "Camp Stool" },
      { customer_identifier: "SKU-2002" },
    ]);
    expect(skus.body).toMatchObject({ records_succeeded: 1, records_failed: 1 });
    expect(orders.inventory().some((record) => record.sku === "SKU-2001")).toBe(true);
    const returns = await call("POST", "/returns", [
      { customer_identifier: "RMA-9000", order_customer_identifier: "ORD-1042" },
    ]);
    expect(returns.body).toMatchObject({ records_succeeded: 1 });
    const inbound = await call("POST", "/inbound_shipments", [
      { customer_identifier: "ASN-9000", lines: [{ sku: "SKU-1001", expected_quantity: 48 }] },
    ]);
    expect(inbound.body).toMatchObject({ records_succeeded: 1 });
  });

  it("updates orders item by item", async () => {
    const created = orders.orders().find((order) => order.status === "created");
    const { body } = await call("PUT", "/orders", [
      { customer_identifier: "ORD-1042", discount_percent: 15, note: "shipped late" },
      { customer_identifier: "ORD-7777", note: "x" },
      { customer_identifier: created?.customer_identifier, status: "delivered" },
    ]);
    expect(body).toMatchObject({
      records_succeeded: 1,
      results: [
        { status: "success" },
        { status: "failure", error_message: expect.stringContaining("does not exist") },
        { status: "failure", error_message: expect.stringContaining("cannot go from created") },
      ],
    });
    expect(orders.order("ORD-1042")).toMatchObject({ discount_percent: 15, note: "shipped late" });
  });

  it("cancels created orders and fails unknown, canceled, shipped and delivered ones", async () => {
    const byStatus = (status: string) =>
      orders.orders().find((order) => order.status === status)?.customer_identifier ?? "";
    const created = byStatus("created");
    const { body } = await call("DELETE", "/orders", [
      created,
      "ORD-0000",
      byStatus("canceled"),
      byStatus("shipped"),
      byStatus("delivered"),
    ]);
    expect(body).toMatchObject({ records_submitted: 5, records_succeeded: 1, records_failed: 4 });
    const results = (body as { results: { status: string; error_message?: string }[] }).results;
    expect(results.map((result) => result.status)).toEqual([
      "success",
      "failure",
      "failure",
      "failure",
      "failure",
    ]);
    expect(results[2]?.error_message).toContain("already canceled");
    expect(orders.order(created)?.status).toBe("canceled");
  });
});

describe("orders simulator: fault injection and the request log", () => {
  it("fails the next matching request with the planned status, then recovers", async () => {
    orders.failNext({
      method: "GET",
      path: "/orders",
      status: 429,
      headers: { "retry-after": "0" },
    });
    orders.failNext({ path: "/skus", status: 503 });
    const limited = await call("GET", "/orders");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("0");
    expect((await call("GET", "/skus")).status).toBe(503);
    expect((await call("GET", "/orders")).status).toBe(200);
  });

  it("records requests so a test can assert what was (not) sent", async () => {
    await call("GET", "/callbacks");
    expect(
      orders.requests.some(
        (request) => request.method === "DELETE" && request.path === "/callbacks",
      ),
    ).toBe(false);
    expect(orders.requests[0]).toMatchObject({
      method: "GET",
      path: "/callbacks",
      authorized: true,
    });
    expect(JSON.stringify(orders.requests)).not.toContain(orders.token);
  });
});
