import nock from "nock";
import { describe, expect, it } from "vitest";
import {
  AbortedError,
  type ApiError,
  ConfigurationError,
  InternalServerError,
  NotFoundError,
} from "../../../src/errors/index.js";
import { errorFamilies } from "../../helpers/error-families.js";
import { makeClient, origin, prefix, rejection, useNock } from "./order-test-setup.js";

useNock();

describe("error families", () => {
  it.each(errorFamilies)(
    "maps %i to %s with status, method, url, body and request id",
    async (status, type) => {
      const body = { error: { code: `E${status}`, message: "went wrong" } };
      nock(origin)
        .get(`${prefix}/skus`)
        .query({ limit: "1" })
        .reply(status, body, { "x-request-id": "req-9" });
      const error = await rejection(makeClient({ maxRetries: 0 }).listSkus({ limit: 1 }));
      expect(error).toBeInstanceOf(type);
      const apiError = error as ApiError;
      expect(apiError.status).toBe(status);
      expect(apiError.method).toBe("GET");
      expect(apiError.url).toBe(`${origin}${prefix}/skus?limit=1`);
      expect(apiError.body).toEqual(body);
      expect(apiError.requestId).toBe("req-9");
      expect(apiError.environment).toBe("sandbox");
      expect(apiError.message).toBe(
        `GET ${origin}${prefix}/skus?limit=1 [sandbox] answered ${status}: E${status}: went wrong (request id req-9)`,
      );
    },
  );

  it("keeps a plain text error body", async () => {
    nock(origin).get(`${prefix}/orders`).reply(404, "no such account");
    const error = (await rejection(makeClient().listOrders())) as ApiError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.bodyText).toBe("no such account");
    expect(error.message).toMatch(/answered 404: no such account$/);
  });
});

describe("retries", () => {
  it("retries a read on 429 with Retry-After: 0, then succeeds", async () => {
    const scope = nock(origin)
      .get(`${prefix}/callback_holds`)
      .reply(429, { error: { code: "rate", message: "slow down" } }, { "retry-after": "0" })
      .get(`${prefix}/callback_holds`)
      .reply(200, { holds: ["orderEvent"] });
    await expect(makeClient().listCallbackHolds()).resolves.toEqual(["orderEvent"]);
    expect(scope.isDone()).toBe(true);
  });

  it("retries a read on 5xx up to maxRetries, then throws the last error", async () => {
    const scope = nock(origin).get(`${prefix}/orders`).times(3).reply(502, "bad gateway");
    const error = await rejection(makeClient({ maxRetries: 2 }).listOrders());
    expect(error).toBeInstanceOf(InternalServerError);
    expect(scope.isDone()).toBe(true);
  });

  it("does not retry a callback deletion on 5xx", async () => {
    const scope = nock(origin).delete(`${prefix}/callbacks`).times(2).reply(500, "oops");
    const [result] = await makeClient().deleteCallbacks(["0b1d8f3e-3c4a-4f57-9a31-6d1f2b7c9e01"]);
    expect(result?.status).toBe("failure");
    expect(scope.pendingMocks()).toHaveLength(1);
  });
});

describe("per-call options", () => {
  it("throws AbortedError for an aborted read and refuses a bad timeout", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(makeClient().listOrders({}, { signal: controller.signal })).rejects.toBeInstanceOf(
      AbortedError,
    );
    await expect(makeClient().listOrders({}, { timeoutMs: 0 })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });
});
