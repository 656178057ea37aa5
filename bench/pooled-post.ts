import { Agent, type IncomingMessage, request } from "node:http";

/** One keep-alive pool for the hand-written pooled loop, capped like the library's default. */
const pool = new Agent({ keepAlive: true, maxSockets: 16, scheduling: "lifo" });

/**
 * The pooled floor's request: `node:http` over a keep-alive Agent, the
 * body written whole, the answer handed back as soon as its headers
 * arrive. No timeout, no abort, no size cap.
 */
export function postPooled(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      agent: pool,
    });
    outgoing.on("error", reject);
    outgoing.on("response", resolve);
    outgoing.end(body);
  });
}

/** The whole body of an answer as text. */
export function readPooledText(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    incoming.on("error", reject);
  });
}
