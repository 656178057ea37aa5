import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { mcpSdk } from "./mcp-sdk.js";

/** Options of {@link serveMcpOverHttp}. */
export interface ServeMcpOverHttpOptions {
  /** Builds the MCP server for one request, e.g. `() => createMcpServer({ tools, approver })`. */
  createServer: () => Server;
  /**
   * The bearer token every request must carry (`Authorization: Bearer
   * <token>`); at least 16 characters. A request without it is answered 401
   * and reaches no tool.
   */
  token: string;
  /** 0 picks a free port. @default 0 */
  port?: number | undefined;
  /** The interface to listen on. @default "127.0.0.1" (this machine only) */
  host?: string | undefined;
  /** The path MCP is served at. @default "/mcp" */
  path?: string | undefined;
  /** Receives one line per failed request. @default silent */
  logger?: Logger | undefined;
}

/** A running MCP endpoint. */
export interface McpHttpEndpoint {
  /** Where MCP clients connect, e.g. `http://127.0.0.1:8931/mcp`. */
  url: string;
  /** Stops listening and ends open requests. */
  close(): Promise<void>;
}

/** The fewest characters a bearer token of {@link serveMcpOverHttp} may have. */
export const minimumMcpTokenLength = 16;

/**
 * Serves MCP over Streamable HTTP, stateless: each POST gets its own server
 * and transport (the SDK's `StreamableHTTPServerTransport`), so requests of
 * many clients never share state and a server holds nothing between calls.
 * Every request needs the bearer token (compared in constant time); GET and
 * DELETE, which only sessions use, are answered 405.
 *
 * @throws ConfigurationError when the token is missing or short.
 *
 * @example
 * const endpoint = await serveMcpOverHttp({
 *   createServer: () => createMcpServer({ tools, approver }),
 *   token: process.env.SWITCHYARD_MCP_TOKEN!,
 *   port: 8931,
 * });
 * console.error(`MCP at ${endpoint.url}`);
 */
export async function serveMcpOverHttp(options: ServeMcpOverHttpOptions): Promise<McpHttpEndpoint> {
  if (typeof options.token !== "string" || options.token.length < minimumMcpTokenLength) {
    throw new ConfigurationError(
      `serveMcpOverHttp needs a bearer token of at least ${minimumMcpTokenLength} characters (e.g. randomBytes(32).toString("base64url")); every request must send it as Authorization: Bearer <token>.`,
    );
  }
  const { StreamableHTTPServerTransport } = mcpSdk.streamableHttp("serveMcpOverHttp");
  const expected = digest(options.token);
  const path = options.path ?? "/mcp";
  const logger = componentLogger(options.logger, "mcp-http");
  const httpServer = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.warn({ error: (error as Error)?.message }, "MCP request failed");
      if (!response.headersSent) sendError(response, 500, -32603, "Internal error");
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== path) {
      sendError(response, 404, -32000, `Not found; MCP is served at ${path}.`);
      return;
    }
    if (!authorized(request.headers.authorization, expected)) {
      response.setHeader("WWW-Authenticate", 'Bearer realm="switchyard"');
      sendError(response, 401, -32001, "Unauthorized: send Authorization: Bearer <token>.");
      return;
    }
    if (request.method !== "POST") {
      response.setHeader("Allow", "POST");
      sendError(response, 405, -32000, "Method not allowed: this server is stateless; send POST.");
      return;
    }
    const server = options.createServer();
    // Without a session id generator the transport is stateless.
    const transport = new StreamableHTTPServerTransport({});
    response.on("close", () => {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      }),
  };
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

/** Equal-length values for the constant-time comparison, whatever was sent. */
function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** Answers with a JSON-RPC error not tied to a request, as the SDK's transports do. */
function sendError(response: ServerResponse, status: number, code: number, message: string): void {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
