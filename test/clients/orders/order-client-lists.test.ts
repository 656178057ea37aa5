import nock from "nock";
import { describe, expect, it } from "vitest";
import type { OrderClient } from "../../../src/clients/orders/order-client.js";
import type { ListParams, ServiceRecord } from "../../../src/clients/orders/order-types.js";
import { ConfigurationError } from "../../../src/errors/index.js";
import { UnexpectedAnswerError } from "../../../src/errors/unexpected-answer-error.js";
import { makeClient, origin, prefix, rejection, useNock } from "./order-test-setup.js";

useNock();

type Lister = (client: OrderClient, params?: ListParams) => Promise<unknown>;
type Iterator = (client: OrderClient, params?: ListParams) => AsyncGenerator<ServiceRecord>;

const lists: [path: string, list: Lister, iterate: Iterator][] = [
  [
    "skus",
    (client, params) => client.listSkus(params),
    (client, params) => client.iterateSkus(params),
  ],
  [
    "inventory",
    (client, params) => client.listInventory(params),
    (client, params) => client.iterateInventory(params),
  ],
  [
    "orders",
    (client, params) => client.listOrders(params),
    (client, params) => client.iterateOrders(params),
  ],
  [
    "returns",
    (client, params) => client.listReturns(params),
    (client, params) => client.iterateReturns(params),
  ],
  [
    "inbound_shipments",
    (client, params) => client.listInboundShipments(params),
    (client, params) => client.iterateInboundShipments(params),
  ],
  [
    "outbound_shipments",
    (client, params) => client.listOutboundShipments(params),
    (client, params) => client.iterateOutboundShipments(params),
  ],
];

function orders(count: number, from = 0): ServiceRecord[] {
  return Array.from({ length: count }, (_, index) => ({
    customer_identifier: `ORD-${from + index}`,
    created_at: "2024-05-01T10:00:00Z",
  }));
}

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

describe.each(lists)("GET /%s", (path, list, iterate) => {
  it("reads one page with paging, list type and filters", async () => {
    const envelope = {
      limit: 2,
      offset: 4,
      list_type: "summary",
      data: [{ customer_identifier: "A", colour: "red" }],
      total: 5,
    };
    const scope = nock(origin)
      .get(`${prefix}/${path}`)
      .query({ limit: "2", offset: "4", list_type: "summary", status: "open", tag: ["a", "b"] })
      .reply(200, envelope);
    const page = await list(makeClient(), {
      limit: 2,
      offset: 4,
      listType: "summary",
      status: "open",
      tag: ["a", "b"],
      ignored: undefined,
    });
    expect(page).toEqual(envelope);
    expect(scope.isDone()).toBe(true);
  });

  it("iterates every record", async () => {
    nock(origin)
      .get(`${prefix}/${path}`)
      .query({ limit: "100", offset: "0" })
      .reply(200, { limit: 100, offset: 0, data: orders(3) });
    await expect(collect(iterate(makeClient()))).resolves.toEqual(orders(3));
  });
});

describe("list parameters", () => {
  it("checks limit, offset, list type and filters before sending", async () => {
    const error = await rejection(
      makeClient().listOrders({
        limit: 101,
        offset: -1,
        // @ts-expect-error: not a list type
        listType: "full",
        // @ts-expect-error: objects are not query values
        customer: { id: 1 },
      }),
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual([
      "limit 101 is out of range: give an integer from 1 to 100",
      "offset -1 is invalid: give an integer of at least 0",
      'listType "full" is invalid: use "detail" or "summary"',
      "filter customer is an object: filters must be strings, finite numbers, booleans or arrays of them",
    ]);
    await expect(makeClient().listSkus({ limit: 0 })).rejects.toThrow(/limit 0 is out of range/);
    await expect(makeClient().listSkus({ limit: 2.5 })).rejects.toThrow(/limit 2.5/);
  });

  it("accepts list_type as an alias and a bare array answer", async () => {
    nock(origin)
      .get(`${prefix}/skus`)
      .query({ list_type: "detail" })
      .reply(200, [{ sku: "S-1" }]);
    await expect(makeClient().listSkus({ list_type: "detail" })).resolves.toEqual({
      data: [{ sku: "S-1" }],
    });
  });

  it("refuses an answer that is not a list", async () => {
    nock(origin).get(`${prefix}/orders`).reply(200, { orders: [] });
    const error = await rejection(makeClient().listOrders());
    expect(error).toBeInstanceOf(UnexpectedAnswerError);
    expect(error.message).toMatch(/GET https:\/\/.*\/orders \[sandbox\] answered with a body/);
    expect(error.message).toMatch(/got an object with fields orders/);
  });
});

describe("iterateOrders", () => {
  it("walks 250 orders over three pages of 100", async () => {
    const all = orders(250);
    const scope = nock(origin);
    for (const offset of [0, 100, 200]) {
      scope
        .get(`${prefix}/orders`)
        .query({ limit: "100", offset: String(offset), list_type: "summary" })
        .reply(200, {
          limit: 100,
          offset,
          list_type: "summary",
          data: all.slice(offset, offset + 100),
        });
    }
    const seen = await collect(makeClient().iterateOrders({ listType: "summary" }));
    expect(seen).toEqual(all);
    expect(scope.isDone()).toBe(true);
  });

  it("keeps going when the service caps pages below the asked size", async () => {
    const all = orders(120);
    const scope = nock(origin);
    for (const offset of [0, 50, 100]) {
      scope
        .get(`${prefix}/orders`)
        .query({ limit: "100", offset: String(offset) })
        .reply(200, { limit: 50, offset, data: all.slice(offset, offset + 50) });
    }
    await expect(collect(makeClient().iterateOrders())).resolves.toEqual(all);
    expect(scope.isDone()).toBe(true);
  });

  it("stops on an empty page after exactly full pages, from a given offset and page size", async () => {
    const scope = nock(origin)
      .get(`${prefix}/orders`)
      .query({ limit: "10", offset: "5" })
      .reply(200, orders(10, 5))
      .get(`${prefix}/orders`)
      .query({ limit: "10", offset: "15" })
      .reply(200, []);
    await expect(collect(makeClient().iterateOrders({ limit: 10, offset: 5 }))).resolves.toEqual(
      orders(10, 5),
    );
    expect(scope.isDone()).toBe(true);
  });

  it("stops when the service ignores the offset", async () => {
    nock(origin)
      .get(`${prefix}/orders`)
      .query(true)
      .times(2)
      .reply(200, { limit: 2, offset: 0, data: orders(2) });
    const error = await rejection(collect(makeClient().iterateOrders({ limit: 2 })));
    expect(error.message).toMatch(/answered offset 0 when asked for offset 2/);
  });

  it("stops when the service ignores the offset and does not echo it", async () => {
    nock(origin).get(`${prefix}/orders`).query(true).times(2).reply(200, orders(2));
    const error = await rejection(collect(makeClient().iterateOrders({ limit: 2 })));
    expect(error.message).toMatch(/answered the same page for offset 2/);
  });
});
