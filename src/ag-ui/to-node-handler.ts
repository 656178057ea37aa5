import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** A `node:http` request listener. */
export type NodeRequestListener = (
  request: IncomingMessage,
  response: ServerResponse,
) => Promise<void>;

/**
 * Serves a Fetch API handler (such as `createAgUiHandler`'s) from
 * `node:http`: the request becomes a `Request` whose signal fires when the
 * client goes away, and the `Response` is written as it streams, waiting
 * for the socket to drain. A handler that throws answers 500 (or ends a
 * response already started).
 *
 * @example
 * createServer(toNodeHandler(createAgUiHandler({ agent, authorize }))).listen(3000);
 */
export function toNodeHandler(
  handler: (request: Request) => Promise<Response>,
): NodeRequestListener {
  return async (request, response) => {
    const controller = new AbortController();
    const abort = () => {
      if (!response.writableFinished)
        controller.abort(new Error("the client closed the connection"));
    };
    response.once("close", abort);
    try {
      const answer = await handler(toRequest(request, controller.signal));
      response.writeHead(answer.status, [...answer.headers.entries()].flat());
      if (typeof response.flushHeaders === "function") response.flushHeaders();
      if (answer.body === null) {
        response.end();
        return;
      }
      const reader = answer.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (response.destroyed) break;
          if (!response.write(value)) await once(response, "drain", { signal: controller.signal });
        }
      } finally {
        await reader.cancel().catch(() => {});
      }
      response.end();
    } catch {
      if (!response.headersSent) {
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        response.end("The request could not be served.\n");
      } else {
        response.destroy();
      }
    } finally {
      response.off("close", abort);
    }
  };
}

function toRequest(request: IncomingMessage, signal: AbortSignal): Request {
  const host = request.headers.host ?? "localhost";
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const method = request.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(new URL(request.url ?? "/", `http://${host}`), {
    method,
    headers,
    signal,
    ...(hasBody
      ? { body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: "half" }
      : {}),
  } as RequestInit);
}
