import type { IncomingMessage } from "node:http";
import { SimulatorHttpError } from "./simulator-http-error.js";

/** What a request body held: nothing, parsed JSON, an HTML form's fields, or text that is not JSON. */
export type RequestBody =
  | { kind: "empty" }
  | { kind: "json"; value: unknown }
  | { kind: "form"; value: URLSearchParams }
  | { kind: "malformed"; text: string; problem: string };

/** The largest body a simulator reads; larger ones get 413. */
export const maximumBodyBytes = 5 * 1024 * 1024;

/**
 * Reads the whole body and parses it as JSON when it has any content, or as
 * form fields when it was sent as `application/x-www-form-urlencoded` (an
 * HTML form of the simulators' pages).
 * Malformed JSON is returned as such (not thrown) so the request can still be
 * logged and routed before the 400 is sent.
 */
export async function readRequestBody(request: IncomingMessage): Promise<RequestBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > maximumBodyBytes) {
      throw new SimulatorHttpError(
        413,
        "body_too_large",
        `Request body is larger than ${maximumBodyBytes} bytes; send fewer records per request.`,
      );
    }
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  const contentType = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (contentType === "application/x-www-form-urlencoded") {
    return { kind: "form", value: new URLSearchParams(text) };
  }
  if (text.trim() === "") return { kind: "empty" };
  try {
    return { kind: "json", value: JSON.parse(text) };
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    return { kind: "malformed", text, problem };
  }
}
