import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ReasonerClient } from "../../../src/clients/reasoner/reasoner-client.js";
import {
  AbortedError,
  ConnectionError,
  ResponseTooLargeError,
  TimeoutError,
} from "../../../src/errors/index.js";
import {
  apiKey,
  collect,
  expectEventsToRebuild,
  expectedCompletion,
  fixtureBytes,
  rejection,
  simpleRequest,
} from "./reasoner-test-kit.js";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const servers: ReturnType<typeof createServer>[] = [];

/** A real HTTP server on 127.0.0.1; returns the url of its chat path. */
async function serve(handler: Handler): Promise<string> {
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => handler(request, Buffer.concat(parts).toString("utf8"), response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const wait = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Writes `bytes` in small pieces with pauses, so reads split lines and UTF-8 characters. */
async function writeSlowly(response: ServerResponse, bytes: Uint8Array, pieceSize: number) {
  for (let start = 0; start < bytes.length; start += pieceSize) {
    if (response.destroyed) return;
    response.write(bytes.subarray(start, start + pieceSize));
    if (start % (pieceSize * 40) === 0) await wait(1);
  }
}

describe("ReasonerClient against a loopback server", () => {
  it("streams an answer written in 5-byte pieces, with the request as sent", async () => {
    const received: { authorization?: string | undefined; body?: unknown; url?: string } = {};
    const url = await serve(async (request, body, response) => {
      received.authorization = request.headers.authorization;
      received.body = JSON.parse(body);
      received.url = request.url ?? "";
      response.writeHead(200, { "content-type": "text/event-stream" });
      await writeSlowly(response, fixtureBytes("crlf.sse"), 5);
      response.end();
    });
    const client = new ReasonerClient({ url, apiKey, model: "vendorA/v3" });
    const { events, completion } = await collect(client.stream(simpleRequest));
    const expected = expectedCompletion("tool-calls.expected.json");
    expect(completion).toEqual(expected);
    expectEventsToRebuild(events, completion);
    expect(received).toEqual({
      authorization: `Bearer ${apiKey}`,
      url: "/v1/chat/completions",
      body: {
        ...simpleRequest,
        model: "vendorA/v3",
        stream: true,
        stream_options: { include_usage: true },
      },
    });
  });

  it("aborting mid-stream closes the connection and surfaces an AbortedError", async () => {
    let closed = false;
    const url = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write('data: {"choices":[{"index":0,"delta":{"content":"Bon"}}]}\n\n');
      response.on("close", () => {
        closed = true;
      });
    });
    const controller = new AbortController();
    const stream = new ReasonerClient({ url, apiKey }).stream(simpleRequest, {
      signal: controller.signal,
    });
    const error = await rejection(
      (async () => {
        for await (const event of stream) if (event.type === "text-delta") controller.abort();
      })(),
    );
    expect(error).toBeInstanceOf(AbortedError);
    for (let tries = 0; tries < 100 && !closed; tries++) await wait(10);
    expect(closed).toBe(true);
  });

  it("a server that goes silent mid-stream gives a TimeoutError", async () => {
    const url = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write('data: {"choices":[{"index":0,"delta":{"content":"Bon"}}]}\n\n');
    });
    const client = new ReasonerClient({ url, apiKey, streamIdleTimeoutMs: 100 });
    const error = await rejection(client.stream(simpleRequest).finalCompletion());
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it("a connection dropped before the first event is sent again", async () => {
    let attempts = 0;
    const url = await serve((_request, _body, response) => {
      attempts++;
      if (attempts === 1) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(": keep-alive\n\n");
        setTimeout(() => response.destroy(), 5);
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(fixtureBytes("reasoning-field.sse"));
    });
    const client = new ReasonerClient({ url, apiKey, initialRetryDelayMs: 1 });
    const answer = await client.stream(simpleRequest).finalCompletion();
    expect(answer).toEqual(expectedCompletion("reasoning.expected.json"));
    expect(attempts).toBe(2);
  });

  it("a connection dropped after the first event ends the stream with a ConnectionError, its text kept", async () => {
    let attempts = 0;
    const url = await serve((_request, _body, response) => {
      attempts++;
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write('data: {"choices":[{"index":0,"delta":{"content":"Bon"}}]}\n\n');
      setTimeout(() => response.destroy(), 20);
    });
    const stream = new ReasonerClient({ url, apiKey, initialRetryDelayMs: 1 }).stream(
      simpleRequest,
    );
    const deltas: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of stream) if (event.type === "text-delta") deltas.push(event.delta);
      })(),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(deltas).toEqual(["Bon"]);
    // Past the first event nothing is sent again.
    expect(attempts).toBe(1);
  });

  it("a body past maxResponseBytes in a stream is refused, and the connection let go", async () => {
    let closed = false;
    const url = await serve((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write('data: {"choices":[{"index":0,"delta":{"content":"Bon"}}]}\n\n');
      response.write(`: ${"x".repeat(4_000)}\n\n`);
      response.on("close", () => {
        closed = true;
      });
    });
    const client = new ReasonerClient({ url, apiKey, maxResponseBytes: 1_000 });
    const error = await rejection(client.stream(simpleRequest).finalCompletion());
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    for (let tries = 0; tries < 100 && !closed; tries++) await wait(10);
    expect(closed).toBe(true);
  });
});
