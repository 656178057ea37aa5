import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  createMcpServer,
  type McpHttpEndpoint,
  type ServeMcpOverHttpOptions,
  serveMcpOverHttp,
} from "../../src/mcp/index.js";
import { deleteOrderTool } from "./mcp-test-kit.js";

const token = "sessions-test-token-0123456789";
const endpoints: McpHttpEndpoint[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
});

async function serve(options: Partial<ServeMcpOverHttpOptions> = {}): Promise<McpHttpEndpoint> {
  const endpoint = await serveMcpOverHttp({
    createServer: () => createMcpServer({ tools: [deleteOrderTool([])], approver: undefined }),
    token,
    ...options,
  });
  endpoints.push(endpoint);
  return endpoint;
}

/** A host that opens a session, as the SDK's client does. */
async function connect(
  endpoint: McpHttpEndpoint,
  options: { getStream?: boolean } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "session-host", version: "1" });
  // Without the GET stream (the spec lets a host go without), its fetch answers every GET itself with 405.
  const postOnly: typeof fetch = (input, init) =>
    (init?.method ?? "GET") === "GET"
      ? Promise.resolve(new Response(null, { status: 405 }))
      : fetch(input, init);
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    ...(options.getStream === false ? { fetch: postOnly } : {}),
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

/** A tools/list of a session, sent as is, with its status and error message. */
async function listIn(
  endpoint: McpHttpEndpoint,
  sessionId: string | undefined,
): Promise<{ status: number; message: string | undefined }> {
  const response = await fetch(endpoint.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
      "Mcp-Protocol-Version": "2025-11-25",
      ...(sessionId !== undefined ? { "Mcp-Session-Id": sessionId } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
  });
  const text = await response.text();
  const message = text.startsWith("{")
    ? (JSON.parse(text) as { error?: { message: string } }).error?.message
    : undefined;
  return { status: response.status, message };
}

describe("serveMcpOverHttp keeps sessions", () => {
  it("names each session with a fresh random id, and answers a request without one 400 saying what to send", async () => {
    const endpoint = await serve();
    const first = await connect(endpoint);
    const second = await connect(endpoint);
    expect(first.transport.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    expect(second.transport.sessionId).not.toBe(first.transport.sessionId);
    expect((await listIn(endpoint, first.transport.sessionId)).status).toBe(200);
    const without = await listIn(endpoint, undefined);
    expect(without.status).toBe(400);
    expect(without.message).toContain("send an initialize request first");
    const get = await fetch(endpoint.url, {
      headers: { Accept: "text/event-stream", Authorization: `Bearer ${token}` },
    });
    expect(get.status).toBe(400);
  });

  it("keeps at most maxSessions, answering another initialize 503, and makes room when one ends with DELETE", async () => {
    const endpoint = await serve({ maxSessions: 1 });
    const first = await connect(endpoint);
    const refused = new Client({ name: "one-too-many", version: "1" });
    await expect(
      refused.connect(
        new StreamableHTTPClientTransport(new URL(endpoint.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      ),
    ).rejects.toThrow(/at most 1 sessions/);
    const ended = first.transport.sessionId!;
    await first.transport.terminateSession();
    const gone = await listIn(endpoint, ended);
    expect(gone.status).toBe(404);
    expect(gone.message).toContain("Session not found");
    const next = await connect(endpoint);
    expect((await next.client.listTools()).tools).toHaveLength(1);
  });

  it("ends a session left unused for sessionIdleTimeoutMs, not one in use or holding its GET stream open", async () => {
    const endpoint = await serve({ sessionIdleTimeoutMs: 300 });
    const idle = await connect(endpoint, { getStream: false });
    const busy = await connect(endpoint, { getStream: false });
    const listening = await connect(endpoint);
    const idleId = idle.transport.sessionId!;
    const busyId = busy.transport.sessionId!;
    // The busy host keeps sending within the timeout; the idle one sends nothing.
    for (let step = 0; step < 6; step += 1) {
      await delay(150);
      expect((await listIn(endpoint, busyId)).status).toBe(200);
    }
    const expired = await listIn(endpoint, idleId);
    expect(expired.status).toBe(404);
    expect(expired.message).toContain("expired unused; open a new one with an initialize request");
    expect((await listening.client.listTools()).tools).toHaveLength(1);
  });

  it("refuses a session cap or idle timeout that is not a positive whole number", async () => {
    await expect(serve({ maxSessions: 0 })).rejects.toThrow(
      /maxSessions must be a whole number from 1/,
    );
    await expect(serve({ sessionIdleTimeoutMs: 1.5 })).rejects.toThrow(
      /sessionIdleTimeoutMs must be a whole number from 1/,
    );
  });
});
