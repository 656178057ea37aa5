import type { IncomingMessage } from "node:http";

/** One request a simulator received, as tests see it. */
export interface RecordedRequest {
  method: string;
  /** Path relative to the simulator's base path, e.g. `/callbacks`. */
  path: string;
  /** The full path as received, e.g. `/acme-sandbox/api/v1/callbacks`. */
  pathname: string;
  /** Query parameters; for a repeated key, the first value. */
  query: Record<string, string>;
  /** Parsed JSON body; the raw text when it was not JSON; undefined when empty. */
  body: unknown;
  /** Request headers (lower-case names) without `authorization`. */
  headers: Record<string, string | string[]>;
  /** True when an `Authorization` header was sent (its value is never kept). */
  authorized: boolean;
  /** Status code answered; undefined until the answer is written. */
  status?: number;
  /** True when the answer came from `failNext`. */
  injected?: boolean;
  receivedAt: string;
}

/** The log entry of a request: query first values, headers without credentials. */
export function recordRequest(
  request: IncomingMessage,
  parts: { method: string; path: string; pathname: string; query: URLSearchParams; body: unknown },
): RecordedRequest {
  return {
    method: parts.method,
    path: parts.path,
    pathname: parts.pathname,
    query: firstValues(parts.query),
    body: parts.body,
    headers: headersWithoutCredentials(request),
    authorized: request.headers.authorization !== undefined,
    receivedAt: new Date().toISOString(),
  };
}

function firstValues(parameters: URLSearchParams): Record<string, string> {
  // Null-prototype: the names are the client's, `constructor` and `__proto__` included.
  const result: Record<string, string> = Object.create(null);
  for (const [key, value] of parameters) {
    if (!Object.hasOwn(result, key)) result[key] = value;
  }
  return result;
}

function headersWithoutCredentials(request: IncomingMessage): Record<string, string | string[]> {
  // Null-prototype: header names are the client's.
  const result: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === "authorization" || name === "proxy-authorization") continue;
    result[name] = value;
  }
  return result;
}
