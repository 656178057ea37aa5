import nock from "nock";
import { describe, expect, it } from "vitest";
import type { ServiceRecord } from "../../../src/clients/orders/order-types.js";
import { makeClient, origin, prefix, useNock } from "./order-test-setup.js";

useNock();

function ordersToCreate(count: number): ServiceRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    customer_identifier: `ORD-${index}`,
    lines: [{ sku: "S-1", quantity: 1 }],
  }));
}

function answerFor(records: ServiceRecord[], failing?: string) {
  const results = records.map((record) =>
    record.customer_identifier === failing
      ? { customer_identifier: failing, status: "failure", error_message: "unknown SKU" }
      : { customer_identifier: record.customer_identifier, status: "success", order_id: 7 },
  );
  const failed = results.filter((result) => result.status === "failure").length;
  return {
    records_submitted: records.length,
    records_processed: records.length,
    records_failed: failed,
    records_succeeded: records.length - failed,
    results,
  };
}

describe("createOrders in batches", () => {
  it("splits 250 orders into 3 requests; one bad item and one failed batch lose nothing else", async () => {
    const input = ordersToCreate(250);
    delete input[5]!.customer_identifier;
    const bodies: ServiceRecord[][] = [];
    const scope = nock(origin)
      .post(`${prefix}/orders`)
      .times(3)
      .reply((_uri, body) => {
        const batch = body as ServiceRecord[];
        bodies.push(batch);
        if (bodies.length === 2)
          return [500, { error: { code: "E500", message: "database down" } }];
        return [200, answerFor(batch, "ORD-7")];
      });

    const result = await makeClient().createOrders(input);
    expect(scope.isDone()).toBe(true);
    expect(bodies.map((body) => body.length)).toEqual([100, 100, 49]);
    expect(bodies[0]?.some((record) => record.customer_identifier === undefined)).toBe(false);

    expect(result.results).toHaveLength(250);
    expect(result.results.map((item) => item.customer_identifier)).toEqual(
      input.map((record) => record.customer_identifier ?? ""),
    );
    expect(result.results[5]).toEqual({
      customer_identifier: "",
      status: "failure",
      error_message: expect.stringMatching(/^not sent: missing customer_identifier/),
    });
    expect(result.results[7]).toMatchObject({ status: "failure", error_message: "unknown SKU" });
    expect(result.results[0]).toEqual({
      customer_identifier: "ORD-0",
      status: "success",
      order_id: 7,
    });
    // Batch 2 holds inputs 101..200 (input 5 was not sent).
    for (const index of [101, 150, 200]) {
      expect(result.results[index]).toMatchObject({
        status: "failure",
        error_message: expect.stringMatching(
          /^batch 2 of 3 failed: POST .*\/orders \[sandbox\] answered 500: E500: database down; the service may have acted/,
        ),
      });
    }
    expect(result.results[100]?.status).toBe("success");
    expect(result.results[201]?.status).toBe("success");
    expect(result).toMatchObject({
      records_submitted: 250,
      records_processed: 149,
      records_failed: 102,
      records_succeeded: 148,
    });
  });

  it("matches results by position when the service names no item", async () => {
    nock(origin)
      .post(`${prefix}/orders`)
      .reply(200, {
        results: [{ status: "success" }, { status: "failure", error_message: "no stock" }],
      });
    const result = await makeClient().createOrders(ordersToCreate(2));
    expect(result.results).toEqual([
      { customer_identifier: "ORD-0", status: "success" },
      { customer_identifier: "ORD-1", status: "failure", error_message: "no stock" },
    ]);
  });

  it("reports items without an answer and an answer without results", async () => {
    nock(origin)
      .post(`${prefix}/orders`)
      .reply(200, [{ customer_identifier: "ORD-1", status: "success" }]);
    const partial = await makeClient().createOrders(ordersToCreate(2));
    expect(partial.results[0]).toEqual({
      customer_identifier: "ORD-0",
      status: "failure",
      error_message: "no result returned for this item",
    });
    expect(partial.records_processed).toBe(1);
    nock(origin).post(`${prefix}/orders`).reply(200, { ok: true });
    const unreadable = await makeClient().createOrders(ordersToCreate(1));
    expect(unreadable.results[0]?.error_message).toMatch(
      /^batch 1 of 1: the answer held no per-item results .*got an object with fields ok/,
    );
  });

  it("retries a write on 429 with Retry-After but not on 5xx", async () => {
    nock(origin)
      .post(`${prefix}/orders`)
      .reply(429, "slow down", { "retry-after": "0" })
      .post(`${prefix}/orders`)
      .reply(200, answerFor(ordersToCreate(1)));
    const retried = await makeClient().createOrders(ordersToCreate(1));
    expect(retried.records_succeeded).toBe(1);

    const scope = nock(origin).post(`${prefix}/orders`).times(2).reply(503, "busy");
    const failed = await makeClient().createOrders(ordersToCreate(1));
    expect(failed.records_failed).toBe(1);
    expect(scope.pendingMocks()).toHaveLength(1);
  });

  it("reports a 4xx batch failure without the may-have-acted warning", async () => {
    nock(origin)
      .post(`${prefix}/orders`)
      .reply(422, { error: { code: "invalid", message: "bad lines" } });
    const result = await makeClient().createOrders(ordersToCreate(1));
    expect(result.results[0]?.error_message).toMatch(/answered 422: invalid: bad lines$/);
  });

  it("sends nothing for an empty array or an aborted signal", async () => {
    await expect(makeClient().createOrders([])).resolves.toEqual({
      records_submitted: 0,
      records_processed: 0,
      records_failed: 0,
      records_succeeded: 0,
      results: [],
    });
    const controller = new AbortController();
    controller.abort();
    const result = await makeClient().createOrders(ordersToCreate(2), {
      signal: controller.signal,
    });
    expect(result.results.map((item) => item.error_message)).toEqual([
      "not sent: the operation was aborted by the caller",
      "not sent: the operation was aborted by the caller",
    ]);
  });
});

describe("other bulk writes", () => {
  it.each([
    ["createSkus", "post", "skus"],
    ["createReturns", "post", "returns"],
    ["createInboundShipments", "post", "inbound_shipments"],
  ] as const)("%s sends the records to %s /%s", async (method, verb, path) => {
    const records = [{ customer_identifier: "X-1", custom_field: true }];
    const scope = nock(origin)[verb](`${prefix}/${path}`, records).reply(200, answerFor(records));
    const result = await makeClient()[method](records);
    expect(scope.isDone()).toBe(true);
    expect(result.records_succeeded).toBe(1);
  });

  it("updateOrders sends PUT and refuses items without changes", async () => {
    const scope = nock(origin)
      .put(`${prefix}/orders`, [{ customer_identifier: "ORD-1", ship_by: "2024-06-01T00:00:00Z" }])
      .reply(200, answerFor([{ customer_identifier: "ORD-1" }]));
    const result = await makeClient().updateOrders([
      { customer_identifier: "ORD-1", ship_by: "2024-06-01T00:00:00Z" },
      { customer_identifier: "ORD-2" },
    ]);
    expect(scope.isDone()).toBe(true);
    expect(result.results.map((item) => item.status)).toEqual(["success", "failure"]);
    expect(result.results[1]?.error_message).toMatch(/^not sent: no changes given/);
  });

  it("cancelOrders sends DELETE with identifiers, once each, and refuses empty ones", async () => {
    const scope = nock(origin)
      .delete(`${prefix}/orders`, ["ORD-1", "ORD-2"])
      .reply(200, answerFor([{ customer_identifier: "ORD-1" }, { customer_identifier: "ORD-2" }]));
    const result = await makeClient().cancelOrders(["ORD-1", "", "ORD-2", "ORD-1"]);
    expect(scope.isDone()).toBe(true);
    expect(result.results.map((item) => [item.customer_identifier, item.status])).toEqual([
      ["ORD-1", "success"],
      ["", "failure"],
      ["ORD-2", "success"],
      ["ORD-1", "success"],
    ]);
    expect(result.records_submitted).toBe(4);
  });
});
