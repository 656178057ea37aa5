import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError, SwitchyardError } from "../../src/errors/index.js";
import { HttpClient } from "../../src/internal/http/http-client.js";

// A redirect is never followed: a 307 would send the body and the configured
// headers (a gateway key) to another origin, and its answer would be taken
// as the service's.

const gatewayKey = "gw-key-7d1e0b5c93a24f68";
const token = "sk-redirect-test-4b8e2a61c0d9";
const servers: ReturnType<typeof createServer>[] = [];

interface Received {
  method: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A loopback server answering every request with `status` and `headers`, recording what it got. */
async function serve(status: number, headers: Record<string, string> = {}) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      received.push({
        method: request.method ?? "",
        headers: request.headers,
        body: Buffer.concat(parts).toString("utf8"),
      });
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify({ answeredBy: "elsewhere" }));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function redirectPair(status: number) {
  const elsewhere = await serve(200);
  const location = `${elsewhere.url}/stolen`;
  const service = await serve(status, { location });
  return { elsewhere, service, location };
}

function client(baseUrl: string, fetch?: typeof globalThis.fetch) {
  return new HttpClient({
    baseUrl,
    token,
    headers: { "x-gateway-key": gatewayKey },
    maxRetries: 0,
    ...(fetch ? { fetch } : {}),
  });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the request to fail, but it succeeded");
}

const transports: [string, typeof globalThis.fetch | undefined][] = [
  ["the default transport", undefined],
  ["a caller's fetch", globalThis.fetch],
];

describe("redirects", () => {
  for (const [label, fetch] of transports) {
    for (const status of [301, 302, 303, 307, 308]) {
      it(`${label}: a ${status} is an error naming the location, and nothing reaches it`, async () => {
        const { elsewhere, service, location } = await redirectPair(status);
        const error = await failure(
          client(service.url, fetch).requestJson({
            method: "POST",
            path: "/orders",
            body: { order: "ORD-42" },
          }),
        );
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(status);
        expect(error.message).toContain(`POST ${service.url}/orders`);
        expect(error.message).toContain(`a redirect to ${location}, which is not followed`);
        expect(service.received).toHaveLength(1);
        expect(service.received[0]?.headers["x-gateway-key"]).toBe(gatewayKey);
        expect(elsewhere.received).toEqual([]);
      });
    }
  }

  it("a caller's fetch that follows redirects anyway: its answer is refused, naming where it ended", async () => {
    const { elsewhere, service, location } = await redirectPair(307);
    const following: typeof globalThis.fetch = (input, init) =>
      globalThis.fetch(input, { ...init, redirect: "follow" });
    const error = await failure(
      client(service.url, following).requestJson({ method: "GET", path: "/orders" }),
    );
    expect(error).toBeInstanceOf(SwitchyardError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error.message).toContain(`GET ${service.url}/orders`);
    expect(error.message).toContain(`a redirect to ${location} that the fetch option followed`);
    expect(error.message).toContain('redirect: "manual"');
    expect(elsewhere.received).toHaveLength(1);
    expect(service.received).toHaveLength(1);
  });
});
