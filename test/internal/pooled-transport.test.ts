import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { DocsClient } from "../../src/clients/docs/docs-client.js";
import { MessagingClient } from "../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { ReasonerClient } from "../../src/clients/reasoner/reasoner-client.js";
import { ConfigurationError, ResponseTooLargeError } from "../../src/errors/index.js";
import { HttpClient } from "../../src/internal/http/http-client.js";
import { transportDefaults } from "../../src/internal/http/transport-options.js";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface CountingServer {
  url: string;
  /** Connections accepted so far. */
  opened(): number;
  /** Most connections open at one time. */
  mostOpen(): number;
  /** Connections open now. */
  openNow(): number;
}

const servers: Server[] = [];

/** A loopback server that counts the connections it accepts. */
async function serve(handler: Handler): Promise<CountingServer> {
  let opened = 0;
  let open = 0;
  let mostOpen = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => handler(request, response));
  });
  server.on("connection", (socket) => {
    opened++;
    open++;
    mostOpen = Math.max(mostOpen, open);
    socket.on("close", () => open--);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    opened: () => opened,
    mostOpen: () => mostOpen,
    openNow: () => open,
  };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const completion = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }],
});

describe("the default transport", () => {
  it("runs 1,000 concurrent agent runs over at most maxConnections sockets, queueing the rest", async () => {
    const server = await serve((_request, response) => {
      // Answer a little later, so that requests pile up beyond the pool.
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(completion);
      }, 2);
    });
    const model = new ReasonerClient({ url: `${server.url}/v1/chat/completions`, apiKey: "k" });
    const agent = new Agent({ model });
    const results = await Promise.all(Array.from({ length: 1_000 }, () => agent.run("go")));
    expect(results.filter((result) => result.output === "done")).toHaveLength(1_000);
    expect(server.mostOpen()).toBeLessThanOrEqual(transportDefaults.maxConnections);
    // Keep-alive: the connections were reused, not one per request.
    expect(server.opened()).toBeLessThanOrEqual(transportDefaults.maxConnections);
  });

  it("honours a smaller maxConnections", async () => {
    const server = await serve((_request, response) => {
      setTimeout(() => response.end("{}"), 1);
    });
    const http = new HttpClient({ baseUrl: server.url, maxConnections: 3 });
    await Promise.all(
      Array.from({ length: 100 }, () => http.requestJson({ method: "GET", path: "/x" })),
    );
    expect(server.mostOpen()).toBeLessThanOrEqual(3);
  });

  it("starts the per-attempt timeout when a request has a connection, not while it waits in the queue", async () => {
    const server = await serve((_request, response) => {
      setTimeout(() => response.end("{}"), 40);
    });
    const http = new HttpClient({ baseUrl: server.url, maxConnections: 1, timeoutMs: 100 });
    // Ten requests one after another over one connection take ~400 ms in
    // all, each well inside its own 100 ms.
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => http.requestJson({ method: "GET", path: "/slow" })),
    );
    expect(answers).toHaveLength(10);
    expect(server.mostOpen()).toBe(1);
  });
});

describe("idle connections", () => {
  it("are closed once idle past the service's Keep-Alive timeout (less a second), never while a request uses them", async () => {
    let answerAfterMs = 0;
    const server = await serve((_request, response) => {
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json", "keep-alive": "timeout=2" });
        response.end("{}");
      }, answerAfterMs);
    });
    // The server itself would wait much longer: a close within seconds is the client's.
    (servers.at(-1) as Server).keepAliveTimeout = 60_000;
    // A pool of its own (pools are shared by clients with the same cap).
    const http = new HttpClient({ baseUrl: server.url, maxConnections: 5 });
    await http.requestJson({ method: "GET", path: "/" });
    // Slower than the idle limit (one second), on the same connection: in use, it stays open.
    answerAfterMs = 1_500;
    await http.requestJson({ method: "GET", path: "/slow" });
    expect(server.opened()).toBe(1);
    for (let attempt = 0; attempt < 200 && server.openNow() > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(server.openNow()).toBe(0);
    expect(server.opened()).toBe(1);
  });
});

describe("ending a request", () => {
  /** Counts the AbortControllers made while `work` runs. */
  async function countControllers(work: () => Promise<unknown>): Promise<number> {
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    try {
      await work();
    } finally {
      globalThis.AbortController = Original;
    }
    return made;
  }

  it("makes no AbortController for a request that ends normally", async () => {
    const server = await serve((_request, response) => response.end('{"ok":true}'));
    const http = new HttpClient({ baseUrl: server.url });
    const made = await countControllers(() =>
      Promise.all(Array.from({ length: 5 }, () => http.requestJson({ method: "GET", path: "/" }))),
    );
    expect(made).toBe(0);
  });

  it("still ends a request on its timeout and on the caller's abort", async () => {
    const server = await serve(() => {
      // Never answers.
    });
    const http = new HttpClient({ baseUrl: server.url, timeoutMs: 50, maxRetries: 0 });
    await expect(http.requestJson({ method: "GET", path: "/silent" })).rejects.toMatchObject({
      name: "TimeoutError",
    });
    const controller = new AbortController();
    const pending = http.requestJson({
      method: "GET",
      path: "/silent",
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("stop")), 20);
    await expect(pending).rejects.toMatchObject({ name: "AbortedError" });
    // Both requests' connections were closed, not left waiting on the server.
    await expect.poll(() => server.openNow()).toBe(0);
  });
});

describe("maxResponseBytes", () => {
  /** Writes 64 KiB pieces until the client hangs up; counts what it wrote. */
  function endless(contentType: string, written: { bytes: number }): Handler {
    return (_request, response) => {
      response.writeHead(200, { "content-type": contentType });
      const piece = Buffer.alloc(64 * 1024, contentType.includes("event-stream") ? ":" : " ");
      const writeMore = () => {
        while (!response.destroyed && written.bytes < 1024 ** 3) {
          written.bytes += piece.length;
          if (!response.write(piece)) {
            response.once("drain", writeMore);
            return;
          }
        }
      };
      response.on("close", () => response.destroy());
      writeMore();
    };
  }

  it("cuts off a JSON answer without Content-Length while reading it", async () => {
    const written = { bytes: 0 };
    const server = await serve(endless("application/json", written));
    const http = new HttpClient({ baseUrl: server.url, maxResponseBytes: 1024 * 1024 });
    const error = await http.requestJson({ method: "GET", path: "/big" }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).limitBytes).toBe(1024 * 1024);
    expect((error as Error).message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/big answered/);
    // Read no further than the limit: the server stopped far short of 1 GiB.
    expect(written.bytes).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses an answer whose Content-Length is over the limit before reading it", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { "content-length": String(10_000), "content-type": "text/plain" });
      response.end("x".repeat(10_000));
    });
    const model = new ReasonerClient({
      url: `${server.url}/v1/chat/completions`,
      apiKey: "k",
      maxResponseBytes: 5_000,
      maxRetries: 0,
    });
    await expect(model.complete({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(
      ResponseTooLargeError,
    );
  });

  it("cuts off a stream whose whole body passes the limit", async () => {
    const written = { bytes: 0 };
    const server = await serve(endless("text/event-stream", written));
    const model = new ReasonerClient({
      url: `${server.url}/v1/chat/completions`,
      apiKey: "k",
      maxResponseBytes: 2 * 1024 * 1024,
      maxRetries: 0,
    });
    const error = await model
      .stream({ messages: [{ role: "user", content: "hi" }] })
      .finalCompletion()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(written.bytes).toBeLessThan(64 * 1024 * 1024);
  });

  it("applies to a caller's fetch too", async () => {
    const fetch = async () =>
      new Response("y".repeat(3_000), { headers: { "content-type": "application/json" } });
    const http = new HttpClient({
      baseUrl: "https://api.example.com",
      fetch,
      maxResponseBytes: 1_000,
    });
    await expect(http.requestJson({ method: "GET", path: "/" })).rejects.toThrow(
      ResponseTooLargeError,
    );
  });
});

describe("transport options", () => {
  const bad = {
    timeoutMs: 0,
    maxRetries: -1,
    maxConnections: 0,
    maxResponseBytes: 1.5,
    fetch: "curl",
  } as never;
  const expected = [
    'fetch "curl" is not a function',
    "timeoutMs 0 must be an integer of at least 1",
    "maxRetries -1 must be an integer of at least 0",
    "maxConnections 0 must be an integer of at least 1",
    "maxResponseBytes 1.5 must be an integer of at least 1",
  ];

  function problemsOf(construct: () => unknown): readonly string[] {
    try {
      construct();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      return (error as ConfigurationError).problems;
    }
    throw new Error("the options were accepted");
  }

  it("are checked the same way by all four clients", () => {
    const base = "http://127.0.0.1:1";
    expect(
      problemsOf(() => new ReasonerClient({ url: base, apiKey: "k", ...(bad as object) })),
    ).toEqual(expected);
    expect(
      problemsOf(() => new OrderClient({ baseUrl: `${base}/acme/api/v1/`, ...(bad as object) })),
    ).toEqual(expected);
    expect(problemsOf(() => new MessagingClient({ baseUrl: base, ...(bad as object) }))).toEqual(
      expected,
    );
    expect(
      problemsOf(
        () => new DocsClient({ baseUrl: `${base}/cli/v1`, token: "t", ...(bad as object) }),
      ),
    ).toEqual(expected);
  });
});
