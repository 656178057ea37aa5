import type { IncomingMessage } from "node:http";
import type { RecordedReasonerRequest } from "./reasoner-simulator-options.js";

const maximumBodyBytes = 16 * 1024 * 1024;

/** The body text, or `undefined` when it is larger than 16 MB. */
export async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // An oversized body is still read to its end, so the 413 answer reaches the client.
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= maximumBodyBytes) chunks.push(chunk as Buffer);
  }
  return size > maximumBodyBytes ? undefined : Buffer.concat(chunks).toString("utf8");
}

/** The parsed JSON, or the parser's message. */
export function parseJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** What the request log keeps of a request: everything but the credentials. */
export function recordOf(
  request: IncomingMessage,
  text: string,
  parsed: { ok: true; value: unknown } | { ok: false; error: string },
): RecordedReasonerRequest {
  // Null-prototype: header names are the client's.
  const headers: RecordedReasonerRequest["headers"] = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) {
    if (name !== "authorization" && name !== "proxy-authorization") headers[name] = value;
  }
  return {
    method: request.method ?? "",
    path: request.url ?? "",
    headers,
    body: text === "" ? undefined : parsed.ok ? parsed.value : text,
  };
}
