import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AbortedError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  TimeoutError,
  UnprocessableEntityError,
} from "../../src/errors/index.js";
import { HttpClient } from "../../src/internal/http/http-client.js";
import { readRetryAfterMs } from "../../src/internal/http/retry-policy.js";
import { captureLogger } from "../helpers/capture-logger.js";
import { socketError } from "../helpers/socket-error.js";

const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJlLXNlY3JldA";
const base = "https://api.test.example/v1";

function client(overrides: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  return new HttpClient({
    baseUrl: base,
    token,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...overrides,
  });
}

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});
afterEach(() => {
  nock.cleanAll();
});
afterAll(() => {
  nock.enableNetConnect();
});

describe("HttpClient addresses", () => {
  it("refuses plain http except on loopback", () => {
    expect(() => new HttpClient({ baseUrl: "http://api.example.com" })).toThrow(ConfigurationError);
    expect(() => new HttpClient({ baseUrl: "http://api.example.com" })).toThrow(
      /only https is allowed/,
    );
    for (const loopback of [
      "http://127.0.0.1:8080",
      "http://localhost:1",
      "http://[::1]:3000",
      "http://127.5.6.7",
    ]) {
      expect(() => new HttpClient({ baseUrl: loopback })).not.toThrow();
    }
    expect(() => new HttpClient({ baseUrl: "not a url" })).toThrow(/not a valid URL/);
    expect(() => new HttpClient({ baseUrl: "ftp://x.example" })).toThrow(/use https/);
  });

  it("joins paths and queries onto the base", () => {
    const http = client();
    expect(
      http.buildUrl({ path: "/orders", query: { limit: 5, skip: undefined, tag: ["a", "b"] } }),
    ).toBe("https://api.test.example/v1/orders?limit=5&tag=a&tag=b");
    expect(http.buildUrl({ path: "" })).toBe("https://api.test.example/v1");
  });

  it("rejects bad numeric options", () => {
    expect(() => client({ maxRetries: -1 })).toThrow(
      /maxRetries -1 must be an integer of at least 0/,
    );
    expect(() => client({ timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});

describe("HttpClient requests", () => {
  it("sends bearer auth and JSON, parses JSON", async () => {
    const scope = nock(base, {
      reqheaders: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    })
      .post("/things", { a: 1 })
      .reply(200, { ok: true });
    await expect(
      client().requestJson({ method: "POST", path: "/things", body: { a: 1 } }),
    ).resolves.toEqual({ ok: true });
    scope.done();
  });

  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [418, ApiError],
  ] as const)(
    "maps status %i to its error class with what is known",
    async (status, errorClass) => {
      nock(base)
        .get("/x")
        .reply(
          status,
          { error: { code: "bad_thing", message: "it broke" } },
          { "x-request-id": "req_123" },
        );
      const error = await client({ maxRetries: 0 })
        .requestJson({ method: "GET", path: "/x" })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(errorClass);
      const apiError = error as ApiError;
      expect(apiError.status).toBe(status);
      expect(apiError.method).toBe("GET");
      expect(apiError.url).toBe(`${base}/x`);
      expect(apiError.requestId).toBe("req_123");
      expect(apiError.body).toEqual({ error: { code: "bad_thing", message: "it broke" } });
      expect(apiError.message).toContain("GET https://api.test.example/v1/x answered");
      expect(apiError.message).toContain("bad_thing: it broke");
    },
  );

  it("keeps a text error body as text", async () => {
    nock(base).get("/t").reply(404, "no such project");
    const error = (await client()
      .requestJson({ method: "GET", path: "/t" })
      .catch((caught: unknown) => caught)) as ApiError;
    expect(error.body).toBe("no such project");
    expect(error.message).toContain("no such project");
  });

  it("scrubs the token from error bodies", async () => {
    nock(base).get("/echo").reply(400, `bad header Bearer ${token} and raw ${token}`);
    const error = (await client()
      .requestJson({ method: "GET", path: "/echo" })
      .catch((caught: unknown) => caught)) as ApiError;
    expect(error.message).not.toContain(token);
    expect(error.bodyText).not.toContain(token);
    expect(error.message).toContain("[redacted]");
  });
});

describe("HttpClient retries", () => {
  it("retries a read on 429 honouring Retry-After, then succeeds", async () => {
    const scope = nock(base)
      .get("/r")
      .reply(429, { error: { message: "slow down" } }, { "retry-after": "0" })
      .get("/r")
      .reply(200, { done: true });
    await expect(client().requestJson({ method: "GET", path: "/r" })).resolves.toEqual({
      done: true,
    });
    scope.done();
  });

  it.each([408, 409, 500, 502, 503])("retries a read on %i", async (status) => {
    const scope = nock(base).get("/r").reply(status, "busy").get("/r").reply(200, { done: true });
    await expect(client().requestJson({ method: "GET", path: "/r" })).resolves.toEqual({
      done: true,
    });
    scope.done();
  });

  it("gives up after maxRetries and reports the last error", async () => {
    nock(base).get("/r").times(3).reply(503, "down");
    const error = await client({ maxRetries: 2 })
      .requestJson({ method: "GET", path: "/r" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(nock.isDone()).toBe(true);
  });

  it("does not retry 400, 401, 404", async () => {
    for (const status of [400, 401, 404]) {
      nock(base).get("/n").reply(status, "no");
      await expect(client().requestJson({ method: "GET", path: "/n" })).rejects.toBeInstanceOf(
        ApiError,
      );
      expect(nock.isDone()).toBe(true);
    }
  });

  it("does not retry a write on 5xx without an idempotency key", async () => {
    nock(base).post("/w").reply(503, "down");
    const second = nock(base).post("/w").reply(200, {});
    await expect(
      client().requestJson({ method: "POST", path: "/w", body: {} }),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect(second.isDone()).toBe(false);
  });

  it("retries a write on 5xx when it carries an idempotency key, with the same key", async () => {
    const keys: string[] = [];
    nock(base)
      .post("/w")
      .times(2)
      .reply(function () {
        keys.push(String(this.req.headers["idempotency-key"]));
        return keys.length === 1 ? [503, "down"] : [200, { ok: 1 }];
      });
    await expect(
      client().requestJson({ method: "POST", path: "/w", body: {}, idempotencyKey: "key-1" }),
    ).resolves.toEqual({ ok: 1 });
    expect(keys).toEqual(["key-1", "key-1"]);
  });

  it("retries a write on 429, since nothing was processed", async () => {
    const scope = nock(base)
      .post("/w")
      .reply(429, "", { "retry-after-ms": "1" })
      .post("/w")
      .reply(200, { ok: 1 });
    await expect(client().requestJson({ method: "POST", path: "/w", body: {} })).resolves.toEqual({
      ok: 1,
    });
    scope.done();
  });

  it("retries connection failures of reads", async () => {
    const scope = nock(base)
      .get("/c")
      .replyWithError(socketError("socket hang up"))
      .get("/c")
      .reply(200, { ok: 1 });
    await expect(client().requestJson({ method: "GET", path: "/c" })).resolves.toEqual({ ok: 1 });
    scope.done();
  });

  it("reports a connection failure as ConnectionError naming method and URL", async () => {
    nock(base).get("/c").times(3).replyWithError(socketError("socket hang up"));
    const error = await client()
      .requestJson({ method: "GET", path: "/c" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain("GET https://api.test.example/v1/c failed");
  });

  it("reads Retry-After as seconds, HTTP date or milliseconds, capped at 60 s", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(readRetryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(readRetryAfterMs(new Headers({ "retry-after": "600" }), now)).toBe(60_000);
    expect(
      readRetryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now),
    ).toBe(5000);
    expect(
      readRetryAfterMs(new Headers({ "retry-after-ms": "150", "retry-after": "9" }), now),
    ).toBe(150);
    expect(readRetryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(readRetryAfterMs(new Headers(), now)).toBeUndefined();
  });

  /** The waits a client announced before each retry, from its warning lines. */
  function announcedWaits(text: string): number[] {
    return text
      .split("\n")
      .filter((line) => line.includes("request failed, retrying"))
      .map((line) => (JSON.parse(line) as { retryInMs: number }).retryInMs);
  }

  it("backs off exponentially with jitter inside bounds", async () => {
    const { logger, text } = captureLogger("warn");
    nock(base).get("/b").times(5).reply(503, "down");
    await client({ maxRetries: 4, initialRetryDelayMs: 8, maxRetryDelayMs: 40, logger })
      .requestJson({ method: "GET", path: "/b" })
      .catch(() => undefined);
    const waits = announcedWaits(text());
    expect(waits).toHaveLength(4);
    // Between half and all of 8 * 2^n, never above the ceiling.
    const ceilings = [8, 16, 32, 40];
    waits.forEach((wait, index) => {
      expect(wait).toBeGreaterThanOrEqual(ceilings[index]! / 2);
      expect(wait).toBeLessThanOrEqual(ceilings[index]!);
    });
  });

  it("waits at least what Retry-After asks, and at least the backoff", async () => {
    const { logger, text } = captureLogger("warn");
    const scope = nock(base)
      .get("/f")
      .reply(429, "", { "retry-after-ms": "30" })
      .get("/f")
      .reply(503, "", { "retry-after-ms": "1" })
      .get("/f")
      .reply(200, { ok: 1 });
    await expect(
      client({ maxRetries: 2, initialRetryDelayMs: 20, maxRetryDelayMs: 40, logger }).requestJson({
        method: "GET",
        path: "/f",
      }),
    ).resolves.toEqual({ ok: 1 });
    scope.done();
    const [first, second] = announcedWaits(text());
    // The service's 30 ms is the floor of a backoff of 10-20 ms...
    expect(first).toBeGreaterThanOrEqual(30);
    // ...and its 1 ms does not cut short a backoff of 20-40 ms.
    expect(second).toBeGreaterThanOrEqual(20);
  });

  it("counts every attempt: a service that always asks to wait is tried maxRetries + 1 times", async () => {
    let hits = 0;
    nock(base)
      .get("/always")
      .times(10)
      .reply(() => {
        hits++;
        return [429, "", { "retry-after-ms": "1" }];
      });
    const error = await client({ maxRetries: 3 })
      .requestJson({ method: "GET", path: "/always" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(hits).toBe(4);
    nock.cleanAll();
  });
});

describe("HttpClient timeouts and abort (real loopback server)", () => {
  let server: Server;
  let url: string;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits++;
      if (request.url === "/slow") {
        setTimeout(() => response.end("{}"), 2_000).unref();
        return;
      }
      response.setHeader("content-type", "application/json");
      response.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("times out a slow answer with TimeoutError, retrying reads first", async () => {
    hits = 0;
    const http = new HttpClient({
      baseUrl: url,
      timeoutMs: 50,
      maxRetries: 1,
      initialRetryDelayMs: 1,
    });
    const error = await http
      .requestJson({ method: "GET", path: "/slow" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(50);
    expect(hits).toBe(2);
  });

  it("stops on the caller's AbortSignal with AbortedError and no retry", async () => {
    hits = 0;
    const http = new HttpClient({ baseUrl: url, maxRetries: 3 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const error = await http
      .requestJson({ method: "GET", path: "/slow", signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AbortedError);
    expect(hits).toBe(1);
  });

  it("fails at once for an already-aborted signal, sending nothing", async () => {
    hits = 0;
    const http = new HttpClient({ baseUrl: url });
    await expect(
      http.requestJson({ method: "GET", path: "/fast", signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(hits).toBe(0);
  });

  it("retries a refused connection even for a write", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    let calls = 0;
    const countingFetch: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const http = new HttpClient({
      baseUrl: `http://127.0.0.1:${port}`,
      fetch: countingFetch,
      maxRetries: 2,
      initialRetryDelayMs: 1,
    });
    await expect(http.requestJson({ method: "POST", path: "/w", body: {} })).rejects.toBeInstanceOf(
      ConnectionError,
    );
    expect(calls).toBe(3);
  });
});
