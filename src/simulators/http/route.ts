import type { IncomingHttpHeaders, IncomingMessage } from "node:http";

/** What a route handler sees of one request. */
export interface RouteContext {
  method: string;
  /** Path relative to the simulator's base path, e.g. `/callbacks`. */
  path: string;
  /** Values of the `:name` segments of the route pattern. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body, or undefined when the request had none. */
  body: unknown;
  /** The fields of an HTML form post, or undefined when the body was not one. */
  form: URLSearchParams | undefined;
  headers: IncomingHttpHeaders;
  request: IncomingMessage;
}

/** What a route handler answers. `body` is sent as JSON, `text` as plain text, `html` as a page. */
export interface RouteResponse {
  status?: number;
  body?: unknown;
  text?: string;
  html?: string;
  headers?: Record<string, string>;
}

/** One endpoint of a simulator. */
export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  /** Relative to the base path; `:name` segments capture, e.g. `/messages/:messageId/cancel`. */
  pattern: string;
  /** True for endpoints that work without a bearer token. */
  public?: boolean;
  /** How this route's errors are written, when not as the server's: `text` for pages a person opens. */
  errorFormat?: "json" | "text";
  handle(context: RouteContext): RouteResponse | Promise<RouteResponse>;
}
