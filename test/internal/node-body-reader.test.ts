import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeTransport } from "../../src/internal/http/node-transport.js";
import type { TransportRequest, TransportResponse } from "../../src/internal/http/transport.js";

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that writes `first`, then cuts the connection without ending the body. */
async function cuttingServer(first: string): Promise<{ url: string; cut: Promise<void> }> {
  let cutDone!: () => void;
  const cut = new Promise<void>((resolve) => {
    cutDone = resolve;
  });
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(first, () => {
      setTimeout(() => {
        response.socket?.destroy();
        cutDone();
      }, 20);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`, cut };
}

function send(url: string): Promise<TransportResponse> {
  const request: TransportRequest = {
    method: "GET",
    url,
    headers: {},
    body: undefined,
    get signal(): AbortSignal {
      return new AbortController().signal;
    },
    setAbortHandler: () => {},
    maxResponseBytes: 1_000_000,
    onConnection: () => {},
  };
  return createNodeTransport(4)(request);
}

describe("the node:http transport's body reader", () => {
  it("reads what arrived, then fails, for a connection cut while it was read", async () => {
    const { url } = await cuttingServer("data: first\n\n");
    const reader = (await send(url)).reader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(Buffer.from(first.value ?? []).toString()).toBe("data: first\n\n");
    await expect(reader.read()).rejects.toThrow();
    // Once failed, it stays failed.
    await expect(reader.read()).rejects.toThrow();
  });

  it("fails at once, never waits, for a body cut before the reader was made", async () => {
    const { url, cut } = await cuttingServer("data: first\n\n");
    const response = await send(url);
    await cut;
    // The connection's end has been seen by the answer before anyone reads it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reader = response.reader();
    await expect(reader.read()).rejects.toThrow();
  });

  it("fails a waiting read when the reader is cancelled", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": waiting\n\n");
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const reader = (
      await send(`http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`)
    ).reader();
    expect((await reader.read()).done).toBe(false);
    const waiting = reader.read();
    reader.cancel();
    await expect(waiting).rejects.toThrow("the connection closed before the answer ended");
  });
});
