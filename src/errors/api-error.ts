import { SwitchyardError } from "./switchyard-error.js";

/** Everything known about a non-2xx answer. */
export interface ApiErrorDetails {
  status: number;
  method: string;
  url: string;
  headers: Headers;
  /** Parsed JSON when the body was JSON, else the text (possibly empty). */
  body: unknown;
  /** The raw body text. */
  bodyText: string;
  /** Which environment the client is bound to, when it knows (e.g. `sandbox`). */
  environment?: string;
}

/**
 * The service answered with a non-2xx status. Subclasses per status family
 * let callers `catch` what they handle: `RateLimitError`, `NotFoundError`, ...
 */
export class ApiError extends SwitchyardError {
  override readonly name: string = "ApiError";
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: unknown;
  readonly bodyText: string;
  /** The service's request id header (`x-request-id` and kin), when present. */
  readonly requestId: string | undefined;
  readonly environment: string | undefined;

  constructor(details: ApiErrorDetails, options?: { cause?: unknown }) {
    super(formatApiErrorMessage(details), options);
    this.status = details.status;
    this.method = details.method;
    this.url = details.url;
    this.headers = details.headers;
    this.body = details.body;
    this.bodyText = details.bodyText;
    this.requestId = readRequestId(details.headers);
    this.environment = details.environment;
  }
}

export class BadRequestError extends ApiError {
  override readonly name: string = "BadRequestError";
}
export class AuthenticationError extends ApiError {
  override readonly name: string = "AuthenticationError";
}
export class PermissionDeniedError extends ApiError {
  override readonly name: string = "PermissionDeniedError";
}
export class NotFoundError extends ApiError {
  override readonly name: string = "NotFoundError";
}
export class ConflictError extends ApiError {
  override readonly name: string = "ConflictError";
}
export class UnprocessableEntityError extends ApiError {
  override readonly name: string = "UnprocessableEntityError";
}
export class RateLimitError extends ApiError {
  override readonly name: string = "RateLimitError";
}
export class InternalServerError extends ApiError {
  override readonly name: string = "InternalServerError";
}

/** Maps a status to the most specific `ApiError` subclass. */
export function createApiError(details: ApiErrorDetails, options?: { cause?: unknown }): ApiError {
  const { status } = details;
  if (status === 400) return new BadRequestError(details, options);
  if (status === 401) return new AuthenticationError(details, options);
  if (status === 403) return new PermissionDeniedError(details, options);
  if (status === 404) return new NotFoundError(details, options);
  if (status === 409) return new ConflictError(details, options);
  if (status === 422) return new UnprocessableEntityError(details, options);
  if (status === 429) return new RateLimitError(details, options);
  if (status >= 500) return new InternalServerError(details, options);
  return new ApiError(details, options);
}

const requestIdHeaders = ["x-request-id", "request-id", "x-correlation-id", "x-amzn-requestid"];

function readRequestId(headers: Headers): string | undefined {
  for (const name of requestIdHeaders) {
    const value = headers.get(name);
    if (value) return value;
  }
  return undefined;
}

function formatApiErrorMessage(details: ApiErrorDetails): string {
  const where = details.environment ? ` [${details.environment}]` : "";
  const reason = isRedirect(details.status)
    ? describeRedirect(details.headers.get("location"))
    : extractReason(details.body, details.bodyText);
  const requestId = readRequestId(details.headers);
  return `${details.method} ${details.url}${where} answered ${details.status}${reason ? `: ${reason}` : ""}${
    requestId ? ` (request id ${requestId})` : ""
  }`;
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

/** Redirects are never followed: they would carry the body and the credentials elsewhere. */
function describeRedirect(location: string | null): string {
  return `a redirect to ${location ?? "an address it does not name"}, which is not followed (it would send the request and its headers elsewhere); set the client's address to the one that answers`;
}

function extractReason(body: unknown, bodyText: string): string {
  if (body && typeof body === "object") {
    const error = (body as { error?: unknown }).error;
    if (typeof error === "string") return error;
    if (error && typeof error === "object") {
      const message = (error as { message?: unknown }).message;
      const code = (error as { code?: unknown }).code;
      if (typeof message === "string")
        return typeof code === "string" ? `${code}: ${message}` : message;
    }
    const message = (body as { message?: unknown }).message;
    if (typeof message === "string") return message;
  }
  const text = bodyText.trim();
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
