import nock from "nock";
import { describe, expect, it } from "vitest";
import { callbackHoldTypes } from "../../../src/clients/orders/callback-hold-types.js";
import { callbackMessageTypes } from "../../../src/clients/orders/callback-message-types.js";
import { ConfigurationError } from "../../../src/errors/index.js";
import { makeClient, origin, prefix, rejection, useNock, uuids } from "./order-test-setup.js";

useNock();

const callback = {
  id: uuids[0],
  url: "https://hooks.example.com/orders",
  message_type: "orderEvent",
  api_version: "2024-01",
  created_at: "2024-05-01T10:00:00Z",
  region: "eu",
};

describe("callback type lists", () => {
  it("exports the seven callback types and the four hold types, which differ", () => {
    expect(callbackMessageTypes).toHaveLength(7);
    expect(callbackHoldTypes).toEqual([
      "skuInventoryChange",
      "orderEvent",
      "shipmentEvent",
      "inboundReceived",
    ]);
    expect(callbackMessageTypes).not.toContain("shipmentEvent");
  });
});

describe("listCallbacks", () => {
  it("lists every callback, keeping unknown fields and timestamps as strings", async () => {
    nock(origin).get(`${prefix}/callbacks`).reply(200, [callback]);
    await expect(makeClient().listCallbacks()).resolves.toEqual([callback]);
  });

  it("filters by message type, including all", async () => {
    const scope = nock(origin)
      .get(`${prefix}/callbacks`)
      .query({ message_type: "rmaEvent" })
      .reply(200, [])
      .get(`${prefix}/callbacks`)
      .query({ message_type: "all" })
      .reply(200, [callback]);
    await makeClient().listCallbacks({ messageType: "rmaEvent" });
    await makeClient().listCallbacks({ messageType: "all" });
    expect(scope.isDone()).toBe(true);
  });

  it("refuses an unknown type, listing the valid names and pointing out hold types", async () => {
    // @ts-expect-error: a hold type, not a callback type
    const error = await rejection(makeClient().listCallbacks({ messageType: "shipmentEvent" }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.message).toMatch(/is a hold type but not a callback message type/);
    expect(error.message).toContain("orderUpdateResolution");
    expect(error.message).toContain("all");
  });
});

describe("createCallbacks", () => {
  it("posts the array with only the known fields and returns the created callbacks", async () => {
    const scope = nock(origin)
      .post(`${prefix}/callbacks`, [
        { url: callback.url, message_type: "orderEvent", api_version: "2024-01" },
      ])
      .reply(201, [callback]);
    const created = await makeClient().createCallbacks([
      // @ts-expect-error: an extra field is not sent
      { url: callback.url, message_type: "orderEvent", api_version: "2024-01", extra: 1 },
    ]);
    expect(created).toEqual([callback]);
    expect(scope.isDone()).toBe(true);
  });

  it("checks every item and sends nothing when one is wrong", async () => {
    const error = await rejection(
      makeClient().createCallbacks([
        { url: "https://hooks.example.com/a", message_type: "orderEvent" },
        // @ts-expect-error: wrong type on purpose
        { url: "http://hooks.example.com/b", message_type: "inboundReceived" },
      ]),
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems;
    expect(problems).toEqual([
      expect.stringMatching(/^callbacks\[1\]\.url uses http: but callbacks must be https/),
      expect.stringMatching(/callbacks\[1\]\.message_type "inboundReceived" is a hold type/),
    ]);
  });
});

describe("deleteCallbacks", () => {
  it("reports non-UUID ids without sending them and still deletes the rest", async () => {
    const scope = nock(origin)
      .delete(`${prefix}/callbacks`, [uuids[0], uuids[1]])
      .reply(200, {
        deleted: [
          { id: uuids[0], status: "success" },
          { id: uuids[1], status: "failure", error_message: "already deleted" },
        ],
      });
    const results = await makeClient().deleteCallbacks([uuids[0]!, "cb-42", uuids[1]!]);
    expect(scope.isDone()).toBe(true);
    expect(results).toEqual([
      { id: uuids[0], status: "success" },
      {
        id: "cb-42",
        status: "failure",
        error_message: expect.stringMatching(/^not sent: not a valid UUID/),
      },
      { id: uuids[1], status: "failure", error_message: "already deleted" },
    ]);
  });

  it("reads a bare array answer and marks ids without an entry as failed", async () => {
    nock(origin)
      .delete(`${prefix}/callbacks`)
      .reply(200, [
        { id: uuids[1]!.toUpperCase(), status: "success", deleted_at: "2024-05-02T00:00:00Z" },
      ]);
    const results = await makeClient().deleteCallbacks([uuids[0]!, uuids[1]!]);
    expect(results).toEqual([
      { id: uuids[0], status: "failure", error_message: "no result returned for this id" },
      { id: uuids[1], status: "success", deleted_at: "2024-05-02T00:00:00Z" },
    ]);
  });

  it("reads a {results} answer and treats other statuses as failures", async () => {
    nock(origin)
      .delete(`${prefix}/callbacks`)
      .reply(200, { results: [{ id: uuids[0], status: "error" }] });
    const [result] = await makeClient().deleteCallbacks([uuids[0]!]);
    expect(result).toEqual({
      id: uuids[0],
      status: "failure",
      error_message: 'the service reported status "error"',
    });
  });

  it("sends a repeated id once and answers every occurrence", async () => {
    const scope = nock(origin)
      .delete(`${prefix}/callbacks`, [uuids[0]])
      .reply(200, { deleted: [{ id: uuids[0], status: "success" }] });
    const results = await makeClient().deleteCallbacks([uuids[0]!, uuids[0]!]);
    expect(scope.isDone()).toBe(true);
    expect(results.map((result) => result.status)).toEqual(["success", "success"]);
  });

  it("splits ids into batches, and a failing batch loses only its own ids", async () => {
    const bodies: unknown[] = [];
    nock(origin)
      .delete(`${prefix}/callbacks`)
      .times(3)
      .reply((_uri, body) => {
        const ids = body as string[];
        bodies.push(ids);
        if (ids.includes(uuids[2]!))
          return [503, { error: { code: "busy", message: "try later" } }];
        return [200, { deleted: ids.map((id) => ({ id, status: "success" })) }];
      });
    const results = await makeClient({ batchSize: 2 }).deleteCallbacks(uuids);
    expect(bodies).toEqual([[uuids[0], uuids[1]], [uuids[2], uuids[3]], [uuids[4]]]);
    expect(results.map((result) => result.status)).toEqual([
      "success",
      "success",
      "failure",
      "failure",
      "success",
    ]);
    expect(results[2]?.error_message).toMatch(
      /^batch 2 of 3 failed: DELETE .* answered 503: busy: try later; the service may have acted on this id/,
    );
  });

  it("sends nothing for an empty list", async () => {
    await expect(makeClient().deleteCallbacks([])).resolves.toEqual([]);
  });
});

describe("callback holds", () => {
  it("lists the active holds", async () => {
    nock(origin)
      .get(`${prefix}/callback_holds`)
      .reply(200, { holds: ["orderEvent"] });
    await expect(makeClient().listCallbackHolds()).resolves.toEqual(["orderEvent"]);
  });

  it("holds types with POST and returns the holds now active", async () => {
    const scope = nock(origin)
      .post(`${prefix}/callback_holds`, ["shipmentEvent", "inboundReceived"])
      .reply(200, { holds: ["orderEvent", "shipmentEvent", "inboundReceived"] });
    await expect(
      makeClient().holdCallbacks(["shipmentEvent", "inboundReceived", "shipmentEvent"]),
    ).resolves.toEqual(["orderEvent", "shipmentEvent", "inboundReceived"]);
    expect(scope.isDone()).toBe(true);
  });

  it("reads the state back when the hold answer is empty", async () => {
    nock(origin)
      .post(`${prefix}/callback_holds`)
      .reply(204)
      .get(`${prefix}/callback_holds`)
      .reply(200, { holds: ["orderEvent"] });
    await expect(makeClient().holdCallbacks(["orderEvent"])).resolves.toEqual(["orderEvent"]);
  });

  it("releases holds with DELETE and returns the holds still active", async () => {
    const scope = nock(origin)
      .delete(`${prefix}/callback_holds`, ["orderEvent"])
      .reply(200, { holds: [] });
    await expect(makeClient().releaseCallbackHolds(["orderEvent"])).resolves.toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it("retries a hold change on 5xx, since it only sets a state", async () => {
    nock(origin)
      .post(`${prefix}/callback_holds`)
      .reply(502, "bad gateway")
      .post(`${prefix}/callback_holds`)
      .reply(200, { holds: ["orderEvent"] });
    await expect(makeClient().holdCallbacks(["orderEvent"])).resolves.toEqual(["orderEvent"]);
  });

  it("refuses callback types that are not hold types, listing the hold names", async () => {
    // @ts-expect-error: callback types, not hold types
    const error = await rejection(makeClient().holdCallbacks(["rmaEvent", "orderEvent", "bogus"]));
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /types\[0\] "rmaEvent" is a callback message type but not a hold type .*valid names: skuInventoryChange, orderEvent, shipmentEvent, inboundReceived/,
    );
    expect(problems[1]).toMatch(/types\[2\] "bogus" is not a hold type/);
    await expect(makeClient().releaseCallbackHolds([])).rejects.toThrow(/non-empty array/);
  });
});
