import { describe, expect, it } from "vitest";
import { ReasonerClient } from "../../src/clients/reasoner/reasoner-client.js";
import { AbortedError, ApiError, ConfigurationError } from "../../src/errors/index.js";
import { HttpClient } from "../../src/internal/http/http-client.js";

/** A fetch that answers when told to, counting the requests in flight. */
function gatedFetch() {
  const gates: { path: string; open: () => void }[] = [];
  const state = { inFlight: 0, maxInFlight: 0, started: [] as string[] };
  const fetch = (async (input: string | URL | Request) => {
    const path = new URL(String(input)).pathname;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    state.started.push(path);
    await new Promise<void>((resolve) => gates.push({ path, open: resolve }));
    state.inFlight--;
    const status = path.endsWith("/fail") ? 503 : 200;
    return new Response(JSON.stringify({ path }), {
      status,
      headers: { "content-type": "application/json" },
    });
  }) as typeof globalThis.fetch;
  const openAll = async () => {
    while (state.inFlight > 0 || gates.length > 0) {
      for (const gate of gates.splice(0)) gate.open();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { fetch, state, gates, openAll };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function client(fetch: typeof globalThis.fetch, maxConcurrentRequests: number) {
  return new HttpClient({
    baseUrl: "https://api.test.example/v1",
    token: "secret-token-value",
    fetch,
    maxRetries: 0,
    maxConcurrentRequests,
  });
}

describe("HttpClient maxConcurrentRequests", () => {
  it("keeps at most the limit in flight and serves the waiting in order", async () => {
    const gated = gatedFetch();
    const http = client(gated.fetch, 2);
    const answers = ["a", "b", "c", "d", "e"].map((name) =>
      http.requestJson<{ path: string }>({ method: "GET", path: name }),
    );
    await tick();
    expect(gated.state.started).toEqual(["/v1/a", "/v1/b"]);
    await gated.openAll();
    expect((await Promise.all(answers)).map((answer) => answer.path)).toEqual([
      "/v1/a",
      "/v1/b",
      "/v1/c",
      "/v1/d",
      "/v1/e",
    ]);
    expect(gated.state.started).toEqual(["/v1/a", "/v1/b", "/v1/c", "/v1/d", "/v1/e"]);
    expect(gated.state.maxInFlight).toBe(2);
  });

  it("gives the slot back when a request fails", async () => {
    const gated = gatedFetch();
    const http = client(gated.fetch, 1);
    const failed = expect(http.requestJson({ method: "GET", path: "fail" })).rejects.toBeInstanceOf(
      ApiError,
    );
    const next = http.requestJson<{ path: string }>({ method: "GET", path: "next" });
    await gated.openAll();
    await failed;
    await expect(next).resolves.toEqual({ path: "/v1/next" });
  });

  it("a request aborted while waiting rejects with AbortedError and is never sent", async () => {
    const gated = gatedFetch();
    const http = client(gated.fetch, 1);
    const first = http.requestJson({ method: "GET", path: "first" });
    const controller = new AbortController();
    const waiting = http.requestJson({ method: "GET", path: "waiting", signal: controller.signal });
    const last = http.requestJson<{ path: string }>({ method: "GET", path: "last" });
    await tick();
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortedError);
    await gated.openAll();
    await first;
    await expect(last).resolves.toEqual({ path: "/v1/last" });
    expect(gated.state.started).toEqual(["/v1/first", "/v1/last"]);
  });

  it("refuses a limit below 1", () => {
    const { fetch } = gatedFetch();
    expect(() => client(fetch, 0)).toThrow(ConfigurationError);
    expect(
      () =>
        new ReasonerClient({
          url: "https://reasoner.example/v1",
          apiKey: "sk-test",
          maxConcurrentRequests: 0,
        }),
    ).toThrow(/maxConcurrentRequests 0 must be an integer of at least 1/);
  });
});
