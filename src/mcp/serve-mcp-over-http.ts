import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { maxTimerMs } from "../tools/tool-timeout.js";
import { mcpSdk } from "./mcp-sdk.js";
import { allowedHostName, hostName, originOf } from "./request-sources.js";

/** Options of {@link serveMcpOverHttp}. */
export interface ServeMcpOverHttpOptions {
  /** Builds the MCP server of one session, e.g. `() => createMcpServer({ tools, approver })`. */
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
  /**
   * The most sessions kept at once. An `initialize` beyond it is answered
   * 503 (nothing is dropped to make room: a session may hold a call waiting
   * for a person's answer); sessions make room by ending (`DELETE`) or
   * expiring.
   * @default 100
   */
  maxSessions?: number | undefined;
  /**
   * How long a session with no request open may stay unused before it is
   * ended, in milliseconds. A session with an open request (a call waiting
   * for its approval, the host's GET stream) never expires. A request naming
   * an ended session is answered 404, after which the host opens a new one.
   * @default 1_800_000 (30 minutes)
   */
  sessionIdleTimeoutMs?: number | undefined;
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
 * Serves MCP over Streamable HTTP with sessions: an `initialize` request
 * opens one (a server from `createServer` and the SDK's
 * `StreamableHTTPServerTransport`, named by a random `Mcp-Session-Id` the
 * SDK's transport mints with `crypto.randomUUID`), and every later request
 * of that host names it. A session keeps what its host declared it can do,
 * so the server can ask the host's user (elicitation) on the stream of the
 * call it is about, even when the host never opens the optional GET stream.
 * `DELETE` with the header ends a session; one unused for
 * `sessionIdleTimeoutMs` ends by itself; at most `maxSessions` are kept. A
 * call still waiting for its approval when its session ends (`DELETE`, or
 * `close()`) is refused and does not run.
 *
 * Every request needs the bearer token (compared in constant time). Before
 * anything else, a request whose `Host` header is not one of
 * `allowedHosts`, or whose `Origin` header is neither the server's own
 * origin nor one of `allowedOrigins`, is answered 403 with a JSON-RPC error
 * (DNS rebinding protection). A request without a session other than
 * `initialize` is answered 400, one naming an unknown or ended session 404,
 * each saying what to send instead.
 *
 * @throws ConfigurationError when the token is missing or short, an allowed
 * host or origin is not one (or none is given for a wildcard `host`), or
 * `maxSessions` or `sessionIdleTimeoutMs` is not a positive whole number.
 *
 * @example
 * const endpoint = await serveMcpOverHttp({
 *   createServer: () => createMcpServer({ tools, approver: "elicitation" }),
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
  const maxSessions = readWholeNumber(
    "maxSessions",
    options.maxSessions,
    defaultMaxMcpSessions,
    problems,
  );
  const idleTimeoutMs = readWholeNumber(
    "sessionIdleTimeoutMs",
    options.sessionIdleTimeoutMs,
    defaultMcpSessionIdleTimeoutMs,
    problems,
  );
  if (problems.length > 0) {
    throw new ConfigurationError(problems.map((problem) => `serveMcpOverHttp: ${problem}`));
  }
  const { StreamableHTTPServerTransport } = mcpSdk.streamableHttp("serveMcpOverHttp");
  const { isInitializeRequest } = mcpSdk.types("serveMcpOverHttp");
  const allowedOrigins = new Set(extraOrigins);
  const expected = digest(options.token);
  const path = options.path ?? "/mcp";
  const logger = componentLogger(options.logger, "mcp-http");
  const sessions = new Map<string, McpSession>();
  /** Sessions whose `initialize` is being answered: they count against the cap. */
  let opening = 0;
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
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (session === undefined) {
        sendError(
          response,
          404,
          -32001,
          "Session not found: it was ended (DELETE) or expired unused; open a new one with an initialize request without Mcp-Session-Id.",
        );
        return;
      }
      keepOpenWhile(session, response);
      await session.transport.handleRequest(request, response);
      return;
    }
    if (request.method !== "POST") {
      response.setHeader("Allow", "POST");
      sendError(
        response,
        request.method === "GET" || request.method === "DELETE" ? 400 : 405,
        -32000,
        `Bad Request: ${request.method} needs the Mcp-Session-Id header of a session; open one with a POST of an initialize request.`,
      );
      return;
    }
    const body = await readJsonBody(request);
    if (body === invalidBody) {
      sendError(response, 400, -32700, "Parse error: the body is not JSON of at most 4 MB.");
      return;
    }
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((message) => isInitializeRequest(message))) {
      sendError(
        response,
        400,
        -32000,
        "Bad Request: no Mcp-Session-Id header. This server keeps sessions: send an initialize request first, then the Mcp-Session-Id header it answers with on every request.",
      );
      return;
    }
    if (sessions.size + opening >= maxSessions) {
      response.setHeader("Retry-After", "60");
      sendError(
        response,
        503,
        -32000,
        `Service Unavailable: this server keeps at most ${maxSessions} sessions and all are in use; try again once one ends (a host ends its session with DELETE, an unused one expires).`,
      );
      return;
    }
    opening += 1;
    try {
      await openSession(request, response, body);
    } finally {
      opening -= 1;
    }
  }

  async function openSession(
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
  ): Promise<void> {
    const server = options.createServer();
    const session: McpSession = {
      server,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, session);
        },
        // DELETE: the transport closes itself (and so its server) after this.
        onsessionclosed: (id) => {
          forget(id);
        },
      }),
      openRequests: 0,
      idleTimer: undefined,
    };
    await server.connect(session.transport);
    keepOpenWhile(session, response);
    await session.transport.handleRequest(request, response, body);
    // An initialize the transport refused opened no session.
    if (session.transport.sessionId === undefined) await server.close().catch(() => {});
  }

  /** Counts the request as open until its response closes; the last one to close starts the idle clock. */
  function keepOpenWhile(session: McpSession, response: ServerResponse): void {
    session.openRequests += 1;
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    response.on("close", () => {
      session.openRequests -= 1;
      const id = session.transport.sessionId;
      if (session.openRequests > 0 || id === undefined || !sessions.has(id)) return;
      session.idleTimer = setTimeout(() => {
        logger.info({ sessionId: id }, "MCP session expired unused");
        end(id);
      }, idleTimeoutMs);
      session.idleTimer.unref();
    });
  }

  function forget(id: string): McpSession | undefined {
    const session = sessions.get(id);
    sessions.delete(id);
    clearTimeout(session?.idleTimer);
    return session;
  }

  /** Ends a session: a call still waiting on it gets its approval question refused. */
  function end(id: string): void {
    forget(id)
      ?.server.close()
      .catch(() => {});
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
    close: async () => {
      for (const id of [...sessions.keys()]) end(id);
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

/** The default of {@link ServeMcpOverHttpOptions.maxSessions}. */
const defaultMaxMcpSessions = 100;
/** The default of {@link ServeMcpOverHttpOptions.sessionIdleTimeoutMs}: 30 minutes. */
const defaultMcpSessionIdleTimeoutMs = 30 * 60_000;
/** The largest request body read, as the SDK's transport allows. */
const maxBodyBytes = 4 * 1024 * 1024;
const invalidBody = Symbol("invalid body");

/** One host's session: its server, its transport, and what keeps it from expiring. */
interface McpSession {
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** Requests of the session whose responses are still open (a waiting call, the GET stream). */
  openRequests: number;
  idleTimer: NodeJS.Timeout | undefined;
}

/** The request's body parsed as JSON, or {@link invalidBody} when it is not JSON or is too large. */
async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) return invalidBody;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return invalidBody;
  }
}

/** A whole number above zero that a Node timer keeps, or the default when absent. */
function readWholeNumber(
  name: string,
  given: number | undefined,
  fallback: number,
  problems: string[],
): number {
  if (given === undefined) return fallback;
  if (!Number.isInteger(given) || given <= 0 || given > maxTimerMs) {
    problems.push(
      `${name} must be a whole number from 1 to ${maxTimerMs}; got ${JSON.stringify(given)}.`,
    );
    return fallback;
  }
  return given;
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
