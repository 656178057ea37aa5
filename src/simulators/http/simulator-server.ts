import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { FaultInjector, type FaultRule, normalizePath } from "./fault-injector.js";
import { matchRoute } from "./match-route.js";
import { type RequestBody, readRequestBody } from "./read-request-body.js";
import { type RecordedRequest, recordRequest } from "./request-log.js";
import type { Route, RouteContext, RouteResponse } from "./route.js";
import { sendEmpty, sendHtml, sendJson, sendText } from "./send-response.js";
import { SimulatorHttpError } from "./simulator-http-error.js";

/** How a simulator's HTTP server behaves. */
export interface SimulatorServerOptions {
  /** Port on 127.0.0.1; 0 picks a free one. @default 0 */
  port?: number;
  /** Path prefix of every route, e.g. `/cli/v1`; empty for none. */
  basePath: string;
  routes: readonly Route[];
  /** `json` answers errors as `{error: {code, message}}`, `text` as the bare message. */
  errorFormat: "json" | "text";
  /**
   * Checks the credentials of a request to a non-public route; returns the
   * error to answer with, or undefined to let it through.
   */
  authenticate?: (context: RouteContext) => SimulatorHttpError | undefined;
}

/** A running simulator server. */
export interface SimulatorServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** `127.0.0.1:PORT` */
  host: string;
  port: number;
  /** Every request received, in order (live array). */
  readonly requests: RecordedRequest[];
  /** Plans a failure for the next matching request(s). */
  failNext(rule: FaultRule): void;
  /** Empties the request log. */
  clearRequests(): void;
  /** Drops planned failures not yet used. */
  clearFaults(): void;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Starts a loopback HTTP server that serves a simulator's route table. */
export async function startSimulatorServer(
  options: SimulatorServerOptions,
): Promise<SimulatorServer> {
  const requests: RecordedRequest[] = [];
  const faults = new FaultInjector();
  let requestCount = 0;

  const sendError = (
    response: ServerResponse,
    error: SimulatorHttpError,
    format: "json" | "text" = options.errorFormat,
  ): void => {
    if (format === "json") {
      sendJson(
        response,
        error.status,
        { error: { code: error.code, message: error.message } },
        error.headers,
      );
    } else {
      sendText(response, error.status, error.message, error.headers);
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    requestCount += 1;
    response.setHeader("x-request-id", `req_${String(requestCount).padStart(6, "0")}`);
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const pathname = normalizePath(url.pathname);
    const path = relativePath(pathname, options.basePath);
    const method = (request.method ?? "GET").toUpperCase();

    let body: RequestBody;
    let bodyError: SimulatorHttpError | undefined;
    try {
      body = await readRequestBody(request);
    } catch (error) {
      if (!(error instanceof SimulatorHttpError)) throw error;
      body = { kind: "empty" };
      bodyError = error;
    }

    const entry = recordRequest(request, {
      method,
      path: path ?? pathname,
      pathname,
      query: url.searchParams,
      body: recordedBody(body),
    });
    requests.push(entry);
    response.on("finish", () => {
      entry.status = response.statusCode;
    });

    const fault = faults.take(method, entry.path);
    if (fault?.delayMs !== undefined) await sleep(fault.delayMs);
    if (fault?.status !== undefined) {
      entry.injected = true;
      sendFault(response, { ...fault, status: fault.status }, options.errorFormat);
      return;
    }
    if (bodyError) return sendError(response, bodyError);

    if (path === undefined) {
      return sendError(
        response,
        new SimulatorHttpError(
          404,
          "not_found",
          `No endpoint at ${pathname}: this simulator serves paths under ${options.basePath}/ (for example ${options.basePath}${options.routes[0]?.pattern ?? "/"}).`,
        ),
      );
    }
    const match = matchRoute(options.routes, method, path);
    if (match.kind === "not-found") {
      const known = [...new Set(options.routes.map((route) => route.pattern))].join(", ");
      return sendError(
        response,
        new SimulatorHttpError(
          404,
          "not_found",
          `No endpoint ${method} ${path}. Known paths (relative to ${options.basePath || "/"}): ${known}.`,
        ),
      );
    }
    if (match.kind === "wrong-method") {
      const allowed = [...new Set(match.allowed)].join(", ");
      return sendError(
        response,
        new SimulatorHttpError(
          405,
          "method_not_allowed",
          `Method ${method} is not allowed on ${path}; allowed: ${allowed}.`,
          { allow: allowed },
        ),
      );
    }

    const context: RouteContext = {
      method,
      path,
      params: match.params,
      query: url.searchParams,
      body: body.kind === "json" ? body.value : undefined,
      form: body.kind === "form" ? body.value : undefined,
      headers: request.headers,
      request,
    };
    if (!match.route.public && options.authenticate) {
      const authError = options.authenticate(context);
      if (authError) return sendError(response, authError);
    }
    if (body.kind === "malformed") {
      return sendError(
        response,
        new SimulatorHttpError(
          400,
          "malformed_json",
          `Request body is not valid JSON (${body.problem}). Send a JSON document with Content-Type: application/json.`,
        ),
      );
    }

    let answer: RouteResponse;
    try {
      answer = await match.route.handle(context);
    } catch (error) {
      if (error instanceof SimulatorHttpError) {
        return sendError(response, error, match.route.errorFormat);
      }
      throw error;
    }
    sendAnswer(response, answer);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      sendError(
        response,
        new SimulatorHttpError(500, "internal_error", `Simulator failure: ${message}`),
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    port,
    requests,
    failNext: (rule) => faults.add(rule),
    clearRequests: () => {
      requests.length = 0;
    },
    clearFaults: () => faults.clear(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function relativePath(pathname: string, basePath: string): string | undefined {
  const base = normalizePath(basePath || "/");
  if (base === "/") return pathname;
  if (pathname === base) return "/";
  if (pathname.startsWith(`${base}/`)) return pathname.slice(base.length);
  return undefined;
}

function recordedBody(body: RequestBody): unknown {
  if (body.kind === "json") return body.value;
  if (body.kind === "form") return Object.fromEntries(body.value);
  if (body.kind === "malformed") return body.text;
  return undefined;
}

function sendAnswer(response: ServerResponse, answer: RouteResponse): void {
  const status = answer.status ?? 200;
  if (answer.html !== undefined) {
    sendHtml(response, status, answer.html, answer.headers);
  } else if (answer.text !== undefined) {
    sendText(response, status, answer.text, answer.headers);
  } else if (answer.body === undefined) {
    sendEmpty(response, status, answer.headers);
  } else {
    sendJson(response, status, answer.body, answer.headers);
  }
}

function sendFault(
  response: ServerResponse,
  fault: FaultRule & { status: number },
  format: "json" | "text",
): void {
  const headers = fault.headers ?? {};
  const message = `Injected fault: the simulator answers ${fault.status} to this request (failNext).`;
  if (typeof fault.body === "string") {
    sendText(response, fault.status, fault.body, headers);
  } else if (fault.body !== undefined) {
    sendJson(response, fault.status, fault.body, headers);
  } else if (format === "text") {
    sendText(response, fault.status, message, headers);
  } else {
    sendJson(response, fault.status, { error: { code: "injected_fault", message } }, headers);
  }
}
