import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import type { Socket } from "node:net";
import {
  type BodyRead,
  type BodyReader,
  checkDeclaredLength,
  ResponseTooLargeSignal,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from "./transport.js";

type Protocol = "http:" | "https:";

/**
 * Idle connections are closed after this long: under the 5 s keep-alive of
 * Node's own servers, so a reused connection is rarely one the service is
 * closing at that moment. A service that announces a shorter
 * `Keep-Alive: timeout=` is heeded, a second early, as Node's agent does.
 */
const idleConnectionTimeoutMs = 4_000;

/** A pool and the module whose `request` uses it. */
interface Pool {
  agent: Agent;
  request: typeof import("node:http").request;
}

const pools = new Map<string, Pool>();

/**
 * The connection pool of one protocol and cap, shared by every client of
 * the process that uses the same `maxConnections`: connections stay open
 * between requests (keep-alive), at most `maxConnections` per origin, and
 * requests beyond them wait in the agent's queue, first come first served.
 * `node:https` is loaded only when an https address is used.
 */
function poolOf(protocol: Protocol, maxConnections: number): Pool {
  const key = `${protocol}${maxConnections}`;
  let pool = pools.get(key);
  if (!pool) {
    const module =
      protocol === "https:"
        ? process.getBuiltinModule("node:https")
        : process.getBuiltinModule("node:http");
    const agent = new module.Agent({
      keepAlive: true,
      maxSockets: maxConnections,
      maxFreeSockets: maxConnections,
      scheduling: "lifo",
    });
    closeWhenIdle(agent);
    pool = { agent, request: module.request as Pool["request"] };
    pools.set(key, pool);
  }
  return pool;
}

/**
 * Times a pooled connection only while it is idle: the agent closes a free
 * connection whose timer fires. The agent's own `timeout` option would
 * time it while a request uses it too, at a cost on every request (a
 * listener added and removed, the timer pushed back on every read and
 * write) for a timer nothing reads then: a slow answer is the request's
 * own timeout's to end.
 */
function closeWhenIdle(agent: Agent): void {
  // Node's returns whether the connection is kept; its types say void.
  const keepSocketAlive = agent.keepSocketAlive as (this: Agent, socket: Socket) => boolean;
  agent.keepSocketAlive = function keepIdleSocketAlive(this: Agent, socket: Socket): boolean {
    if (!keepSocketAlive.call(this, socket)) return false;
    socket.setTimeout(idleTimeoutOf(socket));
    return true;
  };
  const reuseSocket = agent.reuseSocket;
  agent.reuseSocket = function reuseIdleSocket(
    this: Agent,
    socket: Socket,
    request: ClientRequest,
  ): void {
    socket.setTimeout(0);
    reuseSocket.call(this, socket, request);
  };
}

const keepAliveTimeoutPattern = /^timeout=(\d{1,9})/;

/**
 * How long a connection may stay idle: {@link idleConnectionTimeoutMs}, or a
 * second less than the `Keep-Alive: timeout=` of the answer it just carried
 * when that is shorter. (An announced second or less: Node's agent does not
 * keep the connection at all.)
 */
function idleTimeoutOf(socket: Socket): number {
  // The answer is still the socket's while the agent decides to keep it:
  // Node's own keepSocketAlive reads the same header there.
  const answer = (socket as Socket & { _httpMessage?: { res?: IncomingMessage } })._httpMessage
    ?.res;
  const hint = answer?.headers["keep-alive"];
  const seconds = typeof hint === "string" ? keepAliveTimeoutPattern.exec(hint)?.[1] : undefined;
  if (seconds === undefined) return idleConnectionTimeoutMs;
  return Math.max(1, Math.min(idleConnectionTimeoutMs, Number(seconds) * 1000 - 1000));
}

/** Where a request goes, as `http.request` takes it, for the last few addresses. */
interface Destination {
  protocol: Protocol;
  hostname: string;
  port: string;
  path: string;
}

const destinations = new Map<string, Destination>();

/**
 * The parts of a URL `http.request` needs, parsed once per address: a
 * client posting to one address (a chat endpoint) parses it once, not on
 * every request. At most 256 addresses are kept, the oldest dropped first.
 */
function destinationOf(url: string): Destination {
  let destination = destinations.get(url);
  if (!destination) {
    const parsed = new URL(url);
    destination = {
      protocol: parsed.protocol as Protocol,
      // http.request wants an IPv6 literal without its brackets.
      hostname: parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname,
      port: parsed.port,
      path: `${parsed.pathname}${parsed.search}`,
    };
    if (destinations.size >= 256) destinations.delete(destinations.keys().next().value as string);
    destinations.set(url, destination);
  }
  return destination;
}

/**
 * The default transport: `node:http` / `node:https` over a shared
 * keep-alive pool of at most `maxConnections` connections per origin. nock
 * intercepts `node:http`, so tests with nock exercise this path.
 */
export function createNodeTransport(maxConnections: number): Transport {
  return (request) => sendOverNodeHttp(request, maxConnections);
}

function sendOverNodeHttp(
  request: TransportRequest,
  maxConnections: number,
): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    let outgoing: ClientRequest;
    const stopListening = () => request.setAbortHandler(undefined);
    try {
      const destination = destinationOf(request.url);
      const pool = poolOf(destination.protocol, maxConnections);
      const headers: Record<string, string> = request.headers;
      if (request.body !== undefined) {
        headers["content-length"] = String(Buffer.byteLength(request.body));
      }
      const options: RequestOptions = {
        protocol: destination.protocol,
        hostname: destination.hostname,
        port: destination.port,
        path: destination.path,
        method: request.method,
        headers,
        agent: pool.agent,
      };
      outgoing = pool.request(options);
    } catch (error) {
      reject(error);
      return;
    }
    request.setAbortHandler((reason) => outgoing.destroy(reason as Error));
    outgoing.on("socket", () => request.onConnection());
    outgoing.on("error", (error) => {
      stopListening();
      reject(error);
    });
    let answered = false;
    // A request destroyed with something other than an Error emits no
    // "error"; it still closes, and then it failed. After an answer the
    // close is the normal end: no Error is built (its stack costs a
    // few microseconds on every request).
    outgoing.on("close", () => {
      if (answered) return;
      stopListening();
      reject(new Error("the connection closed before an answer arrived"));
    });
    outgoing.on("response", (incoming) => {
      answered = true;
      incoming.on("close", stopListening);
      const tooLarge = checkDeclaredLength(
        incoming.headers["content-length"],
        request.maxResponseBytes,
      );
      if (tooLarge) {
        incoming.destroy();
        reject(tooLarge);
        return;
      }
      resolve(new NodeResponse(incoming, request.maxResponseBytes));
    });
    outgoing.end(request.body);
  });
}

class NodeResponse implements TransportResponse {
  readonly status: number;
  readonly #incoming: IncomingMessage;
  readonly #limit: number;
  #headers: Headers | undefined;

  constructor(incoming: IncomingMessage, limit: number) {
    this.status = incoming.statusCode ?? 0;
    this.#incoming = incoming;
    this.#limit = limit;
    // A connection that breaks before the body is read must not become an
    // uncaught "error": whoever reads the body sees the failure.
    incoming.on("error", () => {});
  }

  /** Built on first use: most successful answers never look at them. */
  get headers(): Headers {
    if (!this.#headers) {
      const headers = new Headers();
      const raw = this.#incoming.rawHeaders;
      for (let index = 0; index + 1 < raw.length; index += 2) {
        headers.append(raw[index] as string, raw[index + 1] as string);
      }
      this.#headers = headers;
    }
    return this.#headers;
  }

  header(name: string): string | undefined {
    const value = this.#incoming.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  text(): Promise<string> {
    const incoming = this.#incoming;
    const limit = this.#limit;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          // What was read is let go at once, not held until the answer is collected.
          chunks.length = 0;
          incoming.destroy();
          reject(new ResponseTooLargeSignal(limit));
          return;
        }
        chunks.push(chunk);
      });
      incoming.on("end", () => {
        resolve(
          chunks.length === 1
            ? (chunks[0] as Buffer).toString("utf8")
            : Buffer.concat(chunks, size).toString("utf8"),
        );
      });
      incoming.on("error", reject);
      incoming.on("close", () => {
        if (!incoming.complete) reject(new Error("the connection closed before the answer ended"));
      });
    });
  }

  reader(): BodyReader {
    return new IncomingBodyReader(this.#incoming, this.#limit);
  }

  cancel(): void {
    this.#incoming.destroy();
  }
}

function closedBeforeTheEnd(): Error {
  return new Error("the connection closed before the answer ended");
}

/** The end of a body read whole: `read()` answers it from then on. */
const bodyEnd = Object.freeze({ done: true as const });

/**
 * Reads an answer's body chunk by chunk as it arrives: what Node's async
 * iterator over a stream does, without its layers (an async generator, a
 * promise per wait, a finished-watcher with its listeners) for a body that
 * usually comes in one or two reads. The stream stays paused between reads
 * (its `readable` event, not `data`), so a slow reader holds the service
 * back instead of buffering its answer here.
 */
class IncomingBodyReader implements BodyReader {
  readonly #incoming: IncomingMessage;
  readonly #limit: number;
  #size = 0;
  #ended = false;
  /** Why reading failed: an error of the stream, or its closing before the end. */
  #failure: unknown;
  #waiting: { resolve: (result: BodyRead) => void; reject: (error: unknown) => void } | undefined;

  constructor(incoming: IncomingMessage, limit: number) {
    this.#incoming = incoming;
    this.#limit = limit;
    incoming.on("readable", () => this.#settle());
    incoming.on("end", () => {
      if (!incoming.complete) return this.#failClosed();
      this.#ended = true;
      this.#settle();
    });
    incoming.on("error", (error) => this.#fail(error));
    incoming.on("close", () => {
      if (!this.#ended) this.#failClosed();
    });
  }

  read(): Promise<BodyRead> {
    if (this.#waiting) return Promise.reject(new Error("a read of this body is already waiting"));
    try {
      const result = this.#next();
      if (result) return Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  cancel(): void {
    this.#incoming.destroy();
  }

  /** The next chunk, the end, or undefined while nothing has arrived; throws on a failure. */
  #next(): BodyRead | undefined {
    if (this.#failure !== undefined) throw this.#failure;
    const incoming = this.#incoming;
    // Destroyed before its end (a cut connection, a cancel), perhaps before
    // this reader was made, when its events had gone by: nothing more is read.
    if (incoming.destroyed && !this.#ended) {
      this.#failure = incoming.errored ?? closedBeforeTheEnd();
      throw this.#failure;
    }
    const chunk = incoming.read() as Buffer | null;
    if (chunk !== null) {
      this.#size += chunk.length;
      if (this.#size > this.#limit) {
        this.#failure = new ResponseTooLargeSignal(this.#limit);
        incoming.destroy();
        throw this.#failure;
      }
      return { done: false, value: chunk };
    }
    return this.#ended ? bodyEnd : undefined;
  }

  /** Something arrived: hands it to a waiting read. */
  #settle(): void {
    const waiting = this.#waiting;
    if (!waiting) return;
    let result: BodyRead | undefined;
    try {
      result = this.#next();
    } catch (error) {
      this.#waiting = undefined;
      waiting.reject(error);
      return;
    }
    if (result === undefined) return;
    this.#waiting = undefined;
    waiting.resolve(result);
  }

  #failClosed(): void {
    this.#fail(closedBeforeTheEnd());
  }

  #fail(error: unknown): void {
    this.#failure ??= error;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(this.#failure);
  }
}
