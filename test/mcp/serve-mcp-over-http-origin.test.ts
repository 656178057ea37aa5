import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createMcpServer,
  type McpHttpEndpoint,
  type ServeMcpOverHttpOptions,
  serveMcpOverHttp,
} from "../../src/mcp/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { initializeBody } from "./mcp-test-kit.js";

const token = "origin-test-token-0123456789";
const initialize = initializeBody;
let ran = 0;
let serversCreated = 0;
const endpoints: McpHttpEndpoint[] = [];

afterEach(async () => {
  ran = 0;
  serversCreated = 0;
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
});

async function serve(options: Partial<ServeMcpOverHttpOptions> = {}): Promise<McpHttpEndpoint> {
  const endpoint = await serveMcpOverHttp({
    createServer: () => {
      serversCreated += 1;
      return createMcpServer({
        tools: [
          defineTool({
            name: "count",
            description: "Counts its calls.",
            parameters: z.object({}),
            readOnly: true,
            execute: () => {
              ran += 1;
              return { ran };
            },
          }),
        ],
        approver: undefined,
      });
    },
    token,
    ...options,
  });
  endpoints.push(endpoint);
  return endpoint;
}

/** A POST with the headers given, `Host` included (which `fetch` will not let a caller set). */
function post(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          Authorization: `Bearer ${token}`,
          ...headers,
        },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        response.on("end", () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: response.statusCode ?? 0, body });
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(initialize);
  });
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "sdk-host", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
    }),
  );
  return client;
}

describe("serveMcpOverHttp against DNS rebinding and foreign web pages", () => {
  it("answers a foreign Origin 403 with a JSON-RPC error, even with the token, and runs nothing", async () => {
    const endpoint = await serve();
    const response = await fetch(endpoint.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${token}`,
        Origin: "https://evil.example.com",
      },
      body: initialize,
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { message: string } };
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    expect(body.error.message).toContain("allowedOrigins");
    expect(serversCreated).toBe(0);

    const client = new Client({ name: "web-page", version: "1" });
    await expect(
      client.connect(
        new StreamableHTTPClientTransport(new URL(endpoint.url), {
          requestInit: {
            headers: { Authorization: `Bearer ${token}`, Origin: "http://127.0.0.1:1" },
          },
        }),
      ),
    ).rejects.toThrow(/Forbidden: requests from the web page.s origin are not allowed/);
    expect(serversCreated).toBe(0);
  });

  it("answers a Host header naming another server 403, as a rebound name would", async () => {
    const endpoint = await serve();
    const port = new URL(endpoint.url).port;
    for (const host of [`evil.example.com:${port}`, "evil.example.com", `127.0.0.2:${port}`]) {
      const refused = await post(endpoint.url, { Host: host });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: expect.stringContaining("DNS rebinding") },
      });
    }
    const rebound = await post(endpoint.url, {
      Host: `evil.example.com:${port}`,
      Origin: `http://evil.example.com:${port}`,
    });
    expect(rebound.status).toBe(403);
    expect(serversCreated).toBe(0);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const accepted = await post(endpoint.url, { Host: host, Origin: `http://${host}` });
      expect(accepted.status).toBe(200);
    }
  });

  it("serves clients that send no Origin, and pages of its own origin or an allowed one", async () => {
    const endpoint = await serve({ allowedOrigins: ["http://localhost:5173"] });
    const own = new URL(endpoint.url).origin;
    for (const headers of [{}, { Origin: own }, { Origin: "http://localhost:5173" }]) {
      const client = await connect(endpoint.url, headers);
      const result = (await client.callTool({ name: "count", arguments: {} })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      await client.close();
    }
    expect(ran).toBe(3);
    const other = await post(endpoint.url, { Origin: "http://localhost:5174" });
    expect(other.status).toBe(403);
    const opaque = await post(endpoint.url, { Origin: "null" });
    expect(opaque.status).toBe(403);
  });

  it("answers only to the names in allowedHosts when they are given", async () => {
    const endpoint = await serve({ allowedHosts: ["mcp.test"] });
    const port = new URL(endpoint.url).port;
    expect((await post(endpoint.url, { Host: `mcp.test:${port}` })).status).toBe(200);
    expect((await post(endpoint.url, { Host: `127.0.0.1:${port}` })).status).toBe(403);
    expect(
      (await post(endpoint.url, { Host: `mcp.test:${port}`, Origin: `http://mcp.test:${port}` }))
        .status,
    ).toBe(200);
  });

  it("refuses to start with a host or origin that is not one, or listening everywhere unnamed", async () => {
    await expect(serve({ allowedOrigins: ["http://localhost:5173/app", "*"] })).rejects.toThrow(
      /allowedOrigins: "http:\/\/localhost:5173\/app" is not an origin[\s\S]*allowedOrigins: "\*" is not an origin/,
    );
    await expect(serve({ allowedHosts: ["localhost:8080"] })).rejects.toThrow(
      /allowedHosts: "localhost:8080" is not a host name without port/,
    );
    await expect(serve({ host: "0.0.0.0" })).rejects.toThrow(
      /listens on every interface: list in allowedHosts/,
    );
  });
});
