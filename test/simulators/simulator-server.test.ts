import { afterEach, describe, expect, it } from "vitest";
import { SeededRandom } from "../../src/simulators/http/seeded-random.js";
import { SimulatorHttpError } from "../../src/simulators/http/simulator-http-error.js";
import {
  type SimulatorServer,
  startSimulatorServer,
} from "../../src/simulators/http/simulator-server.js";

let server: SimulatorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(errorFormat: "json" | "text" = "json"): Promise<SimulatorServer> {
  server = await startSimulatorServer({
    basePath: "/base/v1",
    errorFormat,
    routes: [
      {
        method: "GET",
        pattern: "/items/:itemId",
        handle: ({ params }) => ({ body: { id: params.itemId } }),
      },
      {
        method: "POST",
        pattern: "/items",
        handle: ({ body }) => ({ status: 201, body: { received: body } }),
      },
      { method: "GET", pattern: "/open", public: true, handle: () => ({ text: "open" }) },
    ],
    authenticate: ({ headers }) =>
      headers.authorization === "Bearer good"
        ? undefined
        : new SimulatorHttpError(401, "unauthorized", "Bearer token required."),
  });
  return server;
}

const auth = { authorization: "Bearer good" };

describe("simulator server", () => {
  it("listens on 127.0.0.1 on a free port and routes with path parameters", async () => {
    const running = await start();
    expect(running.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(running.port).toBeGreaterThan(0);
    const response = await fetch(`${running.origin}/base/v1/items/a%20b`, { headers: auth });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: "a b" });
    expect(response.headers.get("x-request-id")).toMatch(/^req_\d+$/);
  });

  it("answers an unknown route with a 404 JSON error naming the path", async () => {
    const running = await start();
    const response = await fetch(`${running.origin}/base/v1/nothing`, { headers: auth });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("not_found");
    expect(body.error.message).toContain("/nothing");
    const outside = await fetch(`${running.origin}/elsewhere`);
    expect(outside.status).toBe(404);
  });

  it("answers a wrong method with 405 and an Allow header", async () => {
    const running = await start();
    const response = await fetch(`${running.origin}/base/v1/items`, {
      method: "DELETE",
      headers: auth,
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("answers malformed JSON with a 400 that says so", async () => {
    const running = await start();
    const response = await fetch(`${running.origin}/base/v1/items`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("malformed_json");
    expect(body.error.message).toMatch(/not valid JSON/);
  });

  it("enforces authentication except on public routes", async () => {
    const running = await start();
    expect((await fetch(`${running.origin}/base/v1/items/1`)).status).toBe(401);
    const open = await fetch(`${running.origin}/base/v1/open`);
    expect(open.status).toBe(200);
    expect(await open.text()).toBe("open");
  });

  it("logs every request with parsed body and without the authorization header", async () => {
    const running = await start();
    await fetch(`${running.origin}/base/v1//items/?x=1&x=2`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "x-trace": "t1" },
      body: JSON.stringify({ a: 1 }),
    });
    const [entry] = running.requests;
    expect(entry).toMatchObject({
      method: "POST",
      path: "/items",
      pathname: "/base/v1/items",
      query: { x: "1" },
      body: { a: 1 },
      authorized: true,
      status: 201,
    });
    expect(entry?.headers["x-trace"]).toBe("t1");
    expect(entry?.headers.authorization).toBeUndefined();
    running.clearRequests();
    expect(running.requests).toHaveLength(0);
  });

  it("injects faults for the matching requests only, the given number of times", async () => {
    const running = await start();
    running.failNext({
      method: "GET",
      path: "/items/1",
      status: 429,
      headers: { "retry-after": "0" },
      times: 2,
    });
    const first = await fetch(`${running.origin}/base/v1/items/1`, { headers: auth });
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("0");
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe("injected_fault");
    expect((await fetch(`${running.origin}/base/v1/items/2`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${running.origin}/base/v1/items/1`, { headers: auth })).status).toBe(429);
    expect((await fetch(`${running.origin}/base/v1/items/1`, { headers: auth })).status).toBe(200);
    expect(running.requests.map((entry) => entry.injected ?? false)).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });

  it("sends an injected text body and text errors for text services", async () => {
    const running = await start("text");
    running.failNext({ status: 503, body: "upstream down" });
    const injected = await fetch(`${running.origin}/base/v1/items/1`, { headers: auth });
    expect(injected.status).toBe(503);
    expect(await injected.text()).toBe("upstream down");
    const missing = await fetch(`${running.origin}/base/v1/nothing`, { headers: auth });
    expect(missing.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await missing.text()).toContain("/nothing");
  });
});

describe("SeededRandom", () => {
  it("repeats its sequence for a seed and makes version 4 UUIDs", () => {
    const first = new SeededRandom(7);
    const second = new SeededRandom(7);
    const ids = [first.uuid(), first.uuid()];
    expect([second.uuid(), second.uuid()]).toEqual(ids);
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new SeededRandom(8).uuid()).not.toBe(ids[0]);
  });
});
