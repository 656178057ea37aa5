import type { ServerResponse } from "node:http";

/** Writes a JSON answer. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/** Writes a plain-text answer. */
export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...headers,
    "content-type": "text/plain; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
  });
  response.end(text);
}

/** Writes an answer with no body (204 and kin). */
export function sendEmpty(
  response: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, headers);
  response.end();
}

/**
 * Writes an HTML page that runs no script and loads nothing: styles inline,
 * forms posting only to the page's own origin, never framed by another site.
 */
export function sendHtml(
  response: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    ...headers,
    "content-type": "text/html; charset=utf-8",
    "content-length": String(Buffer.byteLength(html)),
    "content-security-policy":
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    // Not no-referrer: with it a browser sends "Origin: null" on the page's own form posts.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
  });
  response.end(html);
}
