import { execFile } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ReasonerClient } from "../../../src/clients/reasoner/reasoner-client.js";
import { StreamError } from "../../../src/clients/reasoner/stream-error.js";
import { apiKey, fixtureBytes, rejection, simpleRequest } from "./reasoner-test-kit.js";

// A provider that reports an error mid-stream often leaves the connection
// open. When the error arrives in the same network read as content, the
// reader must still close the body: otherwise the socket stays open and the
// idle timer holds the process for `streamIdleTimeoutMs`.

const encoder = new TextEncoder();
const tgiError = encoder.encode(
  [
    'data: {"id":"","object":"chat.completion.chunk","created":1760000500,"model":"tgi","choices":[{"index":0,"delta":{"role":"assistant","content":"Début…"},"finish_reason":null}]}',
    "",
    'data: {"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"}',
    "",
    "",
  ].join("\n"),
);

/** Four error shapes: OpenAI's `event: error`, OpenRouter's error beside a chunk, a bare JSON line, TGI's string error. */
const shapes: { name: string; bytes: Uint8Array; detail: string }[] = [
  { name: "error-event.sse", bytes: fixtureBytes("error-event.sse"), detail: "overloaded" },
  { name: "top-level-error.sse", bytes: fixtureBytes("top-level-error.sse"), detail: "Rate limit" },
  { name: "bare-json-error.sse", bytes: fixtureBytes("bare-json-error.sse"), detail: "overloaded" },
  { name: "TGI string error", bytes: tgiError, detail: "CUDA out of memory" },
];

const servers: ReturnType<typeof createServer>[] = [];

/**
 * A server that writes `bytes` in one write and keeps the connection open;
 * `closed` resolves when the client closes the socket of each request.
 */
async function serveOneWrite(bytes: Uint8Array) {
  const closed: Promise<void>[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const socket: Socket = request.socket;
    closed.push(new Promise((resolve) => socket.once("close", () => resolve())));
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(bytes);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
  return { url, closed };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("a provider error read together with content", () => {
  for (const shape of shapes) {
    it(`${shape.name}: rejects with the provider's error and closes the connection`, async () => {
      const { url, closed } = await serveOneWrite(shape.bytes);
      const client = new ReasonerClient({ url, apiKey, streamIdleTimeoutMs: 600_000 });
      const error = await rejection(client.stream(simpleRequest).finalCompletion());
      expect(error).toBeInstanceOf(StreamError);
      expect((error as StreamError).kind).toBe("provider_error");
      expect((error as StreamError).detail).toContain(shape.detail);
      expect(closed).toHaveLength(1);
      // Resolves only once the client destroyed the socket; the server never ends it.
      await closed[0];
    });
  }

  it("lets the process exit on its own, with no timer or socket left", async () => {
    const servers = await Promise.all(shapes.map((shape) => serveOneWrite(shape.bytes)));
    const script = `
const { ReasonerClient } = await import("./src/clients/reasoner/reasoner-client.ts");
const urls = JSON.parse(process.env.STREAM_URLS);
for (const url of urls) {
  const client = new ReasonerClient({ url, apiKey: "sk-child-test-5a1c", streamIdleTimeoutMs: 600000 });
  const stream = client.stream({ messages: [{ role: "user", content: "hi" }] });
  try {
    for await (const _event of stream) {}
    console.log("completed");
  } catch (error) {
    console.log(error.kind);
  }
}`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: process.cwd(),
        env: { ...process.env, STREAM_URLS: JSON.stringify(servers.map((server) => server.url)) },
      },
    );
    expect(stdout.trim().split("\n")).toEqual(shapes.map(() => "provider_error"));
    for (const server of servers) await Promise.all(server.closed);
  }, 30_000);
});
