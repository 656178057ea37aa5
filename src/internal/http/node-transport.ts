import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import {
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
 * `Keep-Alive: timeout=` is heeded by the agent.
 */
const idleConnectionTimeoutMs = 4_000;

const pools = new Map<string, Agent>();

/**
 * The connection pool of one protocol and cap, shared by every client of
 * the process that uses the same `maxConnections`: connections stay open
 * between requests (keep-alive), at most `maxConnections` per origin, and
 * requests beyond them wait in the agent's queue, first come first served.
 * `node:https` is loaded only when an https address is used.
 */
export function connectionPool(protocol: Protocol, maxConnections: number): Agent {
  const key = `${protocol}${maxConnections}`;
  let agent = pools.get(key);
  if (!agent) {
    const module =
      protocol === "https:"
        ? process.getBuiltinModule("node:https")
        : process.getBuiltinModule("node:http");
    agent = new module.Agent({
      keepAlive: true,
      maxSockets: maxConnections,
      maxFreeSockets: maxConnections,
      scheduling: "lifo",
      timeout: idleConnectionTimeoutMs,
    });
    pools.set(key, agent);
  }
  return agent;
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
    const { signal } = request;
    const url = new URL(request.url);
    const protocol = url.protocol as Protocol;
    const module =
      protocol === "https:"
        ? process.getBuiltinModule("node:https")
        : process.getBuiltinModule("node:http");
    const headers: Record<string, string> = request.headers;
    if (request.body !== undefined) {
      headers["content-length"] = String(Buffer.byteLength(request.body));
    }
    const options: RequestOptions = {
      method: request.method,
      headers,
      agent: connectionPool(protocol, maxConnections),
    };
    let outgoing: ClientRequest;
    const onAbort = () => outgoing.destroy(signal.reason as Error);
    const stopListening = () => signal.removeEventListener("abort", onAbort);
    try {
      outgoing = module.request(url, options);
    } catch (error) {
      reject(error);
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    outgoing.once("socket", () => request.onConnection());
    outgoing.on("error", (error) => {
      stopListening();
      reject(error);
    });
    // A request destroyed with something other than an Error emits no
    // "error"; it still closes, and then it failed.
    outgoing.once("close", () => {
      stopListening();
      reject(new Error("the connection closed before an answer arrived"));
    });
    outgoing.once("response", (incoming) => {
      incoming.once("close", stopListening);
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
          incoming.destroy();
          reject(new ResponseTooLargeSignal(limit));
          return;
        }
        chunks.push(chunk);
      });
      incoming.once("end", () => {
        resolve(
          chunks.length === 1
            ? (chunks[0] as Buffer).toString("utf8")
            : Buffer.concat(chunks, size).toString("utf8"),
        );
      });
      incoming.on("error", reject);
      incoming.once("close", () => {
        if (!incoming.complete) reject(new Error("the connection closed before the answer ended"));
      });
    });
  }

  reader(): BodyReader {
    const incoming = this.#incoming;
    const limit = this.#limit;
    const iterator = incoming[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let size = 0;
    return {
      async read() {
        const result = await iterator.next();
        if (result.done) {
          if (!incoming.complete) throw new Error("the connection closed before the answer ended");
          return { done: true };
        }
        size += result.value.length;
        if (size > limit) {
          incoming.destroy();
          throw new ResponseTooLargeSignal(limit);
        }
        return { done: false, value: result.value };
      },
      cancel() {
        incoming.destroy();
      },
    };
  }

  cancel(): void {
    this.#incoming.destroy();
  }
}
