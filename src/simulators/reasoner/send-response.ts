import type { ServerResponse } from "node:http";
import type { ReasonerFault } from "./reasoner-simulator-options.js";

/** Answers a queued status fault: its headers, and its body or a status-matched error object. */
export function sendFault(response: ServerResponse, fault: ReasonerFault): void {
  const status = fault.status ?? 500;
  for (const [name, value] of Object.entries(fault.headers ?? {})) response.setHeader(name, value);
  if (typeof fault.body === "string") {
    response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
    response.end(fault.body);
    return;
  }
  sendJson(response, status, fault.body ?? statusErrorBody(status));
}

function statusErrorBody(status: number): unknown {
  if (status === 429) {
    return {
      error: {
        message: "Rate limit reached (simulated).",
        type: "rate_limit_error",
        code: "rate_limit_exceeded",
      },
    };
  }
  if (status === 401 || status === 403) {
    return {
      error: {
        message: "Not allowed (simulated).",
        type: "authentication_error",
        code: "forbidden",
      },
    };
  }
  if (status >= 500) {
    return {
      error: {
        message: `The provider failed with ${status} (simulated).`,
        type: "server_error",
        code: status,
      },
    };
  }
  return {
    error: {
      message: `Request failed with ${status} (simulated).`,
      type: "invalid_request_error",
      code: status,
    },
  };
}

/** The error object sent by a mid-stream fault without its own body. */
export function midStreamErrorBody(): unknown {
  return {
    error: {
      message: "The provider failed mid-stream (simulated).",
      type: "server_error",
      code: 502,
    },
  };
}

/** Sends an OpenAI-style `{error: {message, type, code, param}}` answer. */
export function sendError(
  response: ServerResponse,
  status: number,
  type: string,
  code: string,
  message: string,
): void {
  sendJson(response, status, { error: { message, type, code, param: null } });
}

/** Sends `body` as JSON with this status. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}
