import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { mcpSdk } from "./mcp-sdk.js";
import { allowedHostName, hostName, originOf } from "./request-sources.js";

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
  /**
   * The host names (without port; IPv6 in brackets, e.g. `"[::1]"`) a
   * request's `Host` header may name. A request naming any other is
   * answered 403 and reaches nothing: a web page whose name was made to
   * resolve to this machine (DNS rebinding) names its own. Required when
   * `host` listens on every interface (`0.0.0.0`, `::`).
   * @default ["localhost", "127.0.0.1", "[::1]"] when `host` is a loopback address, else `[host]`
   */
  allowedHosts?: readonly string[] | undefined;
  /**
   * The origins (`scheme://host[:port]`) of web pages allowed to call,
   * besides the server's own (`http://` an allowed host `:` the port). A
   * request with any other `Origin` header is answered 403, as the MCP
   * Streamable HTTP transport requires; a request without one (not sent by a
   * browser: an MCP host, `curl`) is not affected.
   * @default []
   */
  allowedOrigins?: readonly string[] | undefined;
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
 * DELETE, which only sessions use, are answered 405. Before anything else, a
 * request whose `Host` header is not one of `allowedHosts`, or whose
 * `Origin` header is neither the server's own origin nor one of
 * `allowedOrigins`, is answered 403 with a JSON-RPC error (DNS rebinding
 * protection).
 *
 * @throws ConfigurationError when the token is missing or short, or an
 * allowed host or origin is not one (or none is given for a wildcard `host`).
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
  const listenHost = options.host ?? "127.0.0.1";
  const problems: string[] = [];
  const allowedHosts = readAllowedHosts(options.allowedHosts, listenHost, problems);
  const extraOrigins = readAllowedOrigins(options.allowedOrigins, problems);
  if (problems.length > 0) {
    throw new ConfigurationError(problems.map((problem) => `serveMcpOverHttp: ${problem}`));
  }
  const { StreamableHTTPServerTransport } = mcpSdk.streamableHttp("serveMcpOverHttp");
  const allowedOrigins = new Set(extraOrigins);
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
    const forbidden = forbiddenSource(request, allowedHosts, allowedOrigins);
    if (forbidden !== undefined) {
      logger.warn({ reason: forbidden }, "MCP request refused");
      sendError(response, 403, -32000, `Forbidden: ${forbidden}`);
      return;
    }
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
    httpServer.listen(options.port ?? 0, listenHost, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  for (const name of allowedHosts) {
    const own = originOf(`http://${name}:${address.port}`);
    if (own !== undefined) allowedOrigins.add(own);
  }
  return {
    url: `http://${host}:${address.port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      }),
  };
}

const loopbackNames = ["localhost", "127.0.0.1", "[::1]"];
const wildcardAddresses = new Set(["0.0.0.0", "::", "[::]"]);

/** The host names a request may name, as `URL` spells them (lower case, IPv6 in brackets). */
function readAllowedHosts(
  given: readonly string[] | undefined,
  listenHost: string,
  problems: string[],
): Set<string> {
  if (given === undefined) {
    const bound = hostName(listenHost.includes(":") ? `[${listenHost}]` : listenHost);
    if (bound === undefined || wildcardAddresses.has(listenHost)) {
      problems.push(
        `host "${listenHost}" listens on every interface: list in allowedHosts the names clients reach this server by (e.g. ["mcp.internal.example"]), so a request naming any other host is refused.`,
      );
      return new Set();
    }
    return new Set(loopbackNames.includes(bound) ? loopbackNames : [bound]);
  }
  if (!Array.isArray(given) || given.length === 0) {
    problems.push(
      'allowedHosts must be a non-empty array of host names, e.g. ["localhost", "127.0.0.1"].',
    );
    return new Set();
  }
  const names = new Set<string>();
  for (const entry of given) {
    const name = allowedHostName(entry);
    if (name === undefined) {
      problems.push(
        `allowedHosts: ${JSON.stringify(entry)} is not a host name without port (e.g. "localhost", "127.0.0.1", "[::1]", "mcp.example.com").`,
      );
    } else names.add(name);
  }
  return names;
}

/** The origins given, as `URL` spells them (`http://localhost:5173`). */
function readAllowedOrigins(given: readonly string[] | undefined, problems: string[]): string[] {
  if (given === undefined) return [];
  if (!Array.isArray(given)) {
    problems.push('allowedOrigins must be an array of origins, e.g. ["http://localhost:5173"].');
    return [];
  }
  const origins: string[] = [];
  for (const entry of given) {
    const origin = typeof entry === "string" ? originOf(entry) : undefined;
    if (origin === undefined) {
      problems.push(
        `allowedOrigins: ${JSON.stringify(entry)} is not an origin (scheme://host[:port], no path, e.g. "http://localhost:5173" or "https://app.example.com").`,
      );
    } else origins.push(origin);
  }
  return origins;
}

/**
 * Why a request must not be served, or `undefined` when its `Host` names an
 * allowed host and its `Origin`, when it has one, is an allowed origin. The
 * header values are the caller's: never echoed.
 */
function forbiddenSource(
  request: IncomingMessage,
  allowedHosts: ReadonlySet<string>,
  allowedOrigins: ReadonlySet<string>,
): string | undefined {
  const host = request.headers.host;
  const name = host === undefined ? undefined : hostName(host);
  if (name === undefined || !allowedHosts.has(name)) {
    return "the Host header does not name this server (DNS rebinding protection); a server reached by another name lists it in allowedHosts (switchyard mcp --allowed-hosts).";
  }
  const origin = request.headers.origin;
  const parsed = origin === undefined ? undefined : originOf(origin);
  if (origin !== undefined && (parsed === undefined || !allowedOrigins.has(parsed))) {
    return "requests from the web page's origin are not allowed; list the origin in allowedOrigins (switchyard mcp --allowed-origins) to let its pages call this server.";
  }
  return undefined;
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
