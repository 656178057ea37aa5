import pRetry, { AbortError as StopRetrying } from "p-retry";
import { createApiError } from "../../errors/api-error.js";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { SwitchyardError } from "../../errors/switchyard-error.js";
import { AbortedError, ConnectionError, TimeoutError } from "../../errors/transport-errors.js";
import { type Logger, silentLogger } from "../logger.js";
import { redactText, redactValue } from "../redact.js";
import { abortableDelay } from "./abortable-delay.js";
import { RequestSlots } from "./request-slots.js";
import { backoffDelayMs, isRetryableStatus, readRetryAfterMs } from "./retry-policy.js";
import { parseServiceUrl } from "./url-policy.js";

/** Options every client accepts for its transport. */
export interface HttpClientOptions {
  /** Base address; request paths are appended to it. */
  baseUrl: string;
  /** Label of the base URL option in configuration errors. @default "baseUrl" */
  baseUrlLabel?: string;
  /** Bearer credential sent as `Authorization: Bearer <token>`; never logged. */
  token?: string | undefined;
  /** @default globalThis.fetch */
  fetch?: typeof globalThis.fetch | undefined;
  /** Per-attempt timeout in milliseconds. @default 60000 */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt. @default 2 */
  maxRetries?: number | undefined;
  /** First backoff delay; doubles per retry, with jitter. @default 500 */
  initialRetryDelayMs?: number | undefined;
  /** Ceiling of one backoff delay. @default 8000 */
  maxRetryDelayMs?: number | undefined;
  logger?: Logger | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** Shown in logs and errors, e.g. `sandbox` or `production`. */
  environment?: string | undefined;
  /** Further secret values to scrub from errors and logs (the token always is). */
  secrets?: readonly string[] | undefined;
  /**
   * Requests of this client in flight at once (from sending to `done()`,
   * retries included); more wait their turn, in order. Unlimited when omitted.
   */
  maxConcurrentRequests?: number | undefined;
}

export type QueryValue =
  | string
  | number
  | boolean
  | undefined
  | null
  | readonly (string | number | boolean)[];

/** One request through the core. */
export interface HttpRequest {
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  /** Appended to the base URL (`""` posts to the base URL exactly). */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  /** Serialized as JSON when not undefined. */
  body?: unknown;
  headers?: Record<string, string> | undefined;
  /** Sent as `Idempotency-Key`; makes a request with side effects safe to retry. */
  idempotencyKey?: string | undefined;
  /**
   * Declares the request free of side effects even though its method is not
   * GET (e.g. a chat completion or a search by POST), so it retries like a read.
   */
  idempotent?: boolean | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  /** `false` keeps the call out of the retry loop (e.g. a caller-owned retry). */
  retry?: boolean | undefined;
}

/** A successful answer, body not yet read. */
export interface HttpResponse {
  response: Response;
  url: string;
  /**
   * Releases the timeout and the link to the caller's signal; call once the
   * body is consumed, or once the reader watches the signal itself.
   */
  done(): void;
  /** Turns a failure while reading the body into the matching typed error. */
  bodyError(error: unknown): Error;
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);
const userAgent = "switchyard/0.1";

/**
 * The shared transport under every client: bearer auth, JSON bodies,
 * per-attempt timeouts, the caller's AbortSignal, retries through p-retry
 * (honouring Retry-After), typed errors, and secrets kept out of both.
 */
export class HttpClient {
  readonly baseUrl: URL;
  readonly environment: string | undefined;
  readonly logger: Logger;
  readonly #token: string | undefined;
  readonly #fetch: typeof globalThis.fetch;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #initialRetryDelayMs: number;
  readonly #maxRetryDelayMs: number;
  readonly #headers: Record<string, string>;
  readonly #secrets: readonly string[];
  readonly #slots: RequestSlots | undefined;
  #lastUrl: string | undefined;
  #lastRedactedUrl = "";

  constructor(options: HttpClientOptions) {
    this.baseUrl = parseServiceUrl(options.baseUrl, options.baseUrlLabel ?? "baseUrl");
    this.environment = options.environment;
    this.logger = options.logger ?? silentLogger();
    this.#token = options.token;
    const fetchImplementation = options.fetch ?? globalThis.fetch;
    if (typeof fetchImplementation !== "function") {
      throw new ConfigurationError(
        "fetch is not a function: pass a fetch implementation or use Node 20+",
      );
    }
    this.#fetch = fetchImplementation;
    this.#timeoutMs = checkNonNegativeInteger(options.timeoutMs ?? 60_000, "timeoutMs", 1);
    this.#maxRetries = checkNonNegativeInteger(options.maxRetries ?? 2, "maxRetries", 0);
    this.#initialRetryDelayMs = checkNonNegativeInteger(
      options.initialRetryDelayMs ?? 500,
      "initialRetryDelayMs",
      0,
    );
    this.#maxRetryDelayMs = checkNonNegativeInteger(
      options.maxRetryDelayMs ?? 8_000,
      "maxRetryDelayMs",
      0,
    );
    this.#slots =
      options.maxConcurrentRequests === undefined
        ? undefined
        : new RequestSlots(
            checkNonNegativeInteger(options.maxConcurrentRequests, "maxConcurrentRequests", 1),
          );
    this.#headers = { ...options.headers };
    this.#secrets = [...(options.token ? [options.token] : []), ...(options.secrets ?? [])];
  }

  /** Scrubs this client's secrets (and anything token-shaped) from text. */
  redact(text: string): string {
    return redactText(text, this.#secrets);
  }

  /**
   * {@link redact} for a request URL, remembered for the last URL: clients
   * that post to one address pay for the scrub once, not on every answer.
   */
  redactUrl(url: string): string {
    if (url !== this.#lastUrl) {
      this.#lastRedactedUrl = this.redact(url);
      this.#lastUrl = url;
    }
    return this.#lastRedactedUrl;
  }

  /** Scrubs secrets from any value, at any depth. */
  redactValue<T>(value: T): T {
    return redactValue(value, this.#secrets) as T;
  }

  /** Sends a request and parses a JSON answer (an empty body gives `undefined`). */
  async requestJson<T>(request: HttpRequest): Promise<T> {
    const { response, done, bodyError } = await this.send(request);
    try {
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw bodyError(error);
      }
      if (text.trim() === "") return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        throw new SwitchyardError(
          `${request.method} ${this.#describeUrl(response.url || this.buildUrl(request))} answered ${response.status} with a body that is not JSON: ${this.redact(text.slice(0, 200))}`,
          { cause: error },
        );
      }
    } finally {
      done();
    }
  }

  /**
   * Sends a request and resolves once a 2xx answer's headers arrive, with
   * retries. The caller reads the body and then calls `done()`.
   */
  async send(request: HttpRequest): Promise<HttpResponse> {
    const url = this.buildUrl(request);
    if (request.signal?.aborted) throw this.#aborted(request, url);
    const slots = this.#slots;
    if (!slots) return this.#sendWithRetries(request, url);
    const waiting = slots.acquire(request.signal, () => this.#aborted(request, url));
    if (waiting) await waiting;
    let sent: HttpResponse;
    try {
      sent = await this.#sendWithRetries(request, url);
    } catch (error) {
      slots.release();
      throw error;
    }
    let released = false;
    return {
      ...sent,
      done: () => {
        sent.done();
        if (released) return;
        released = true;
        slots.release();
      },
    };
  }

  async #sendWithRetries(request: HttpRequest, url: string): Promise<HttpResponse> {
    const safe =
      safeMethods.has(request.method) ||
      request.idempotent === true ||
      request.idempotencyKey !== undefined;
    const maxRetries = request.retry === false ? 0 : this.#maxRetries;

    // Most requests succeed at once: the first attempt runs outside p-retry,
    // whose per-call setup would otherwise be paid on every request.
    try {
      return await this.#attempt(request, url, 1);
    } catch (error) {
      if (maxRetries === 0 || !isRetryable(error, safe)) throw error;
      await this.#beforeRetry(request, url, asError(error), 1);
    }
    return pRetry(
      async (retryNumber) => {
        try {
          return await this.#attempt(request, url, retryNumber + 1);
        } catch (error) {
          if (!isRetryable(error, safe)) throw new StopRetrying(asError(error));
          throw error;
        }
      },
      {
        retries: maxRetries - 1,
        minTimeout: 0,
        maxTimeout: 0,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft <= 0) return;
          await this.#beforeRetry(request, url, error, attemptNumber + 1);
        },
      },
    ).catch((error: unknown) => {
      throw unwrapStop(error);
    });
  }

  /** Logs a failed attempt and waits out its backoff (or the Retry-After asked for). */
  async #beforeRetry(
    request: HttpRequest,
    url: string,
    error: Error,
    attemptNumber: number,
  ): Promise<void> {
    const delay = retryDelay(
      error,
      attemptNumber,
      this.#initialRetryDelayMs,
      this.#maxRetryDelayMs,
    );
    this.logger.warn(
      {
        method: request.method,
        url: this.#describeUrl(url),
        attempt: attemptNumber,
        retryInMs: delay,
        error: this.redact(error.message),
      },
      "request failed, retrying",
    );
    try {
      await abortableDelay(delay, request.signal);
    } catch {
      throw this.#aborted(request, url);
    }
  }

  /** The full URL of a request, with its query string. */
  buildUrl(request: Pick<HttpRequest, "path" | "query">): string {
    const base = this.baseUrl.href;
    if (request.path === "" && request.query === undefined) return base;
    let url: URL;
    if (request.path === "") {
      url = new URL(base);
    } else {
      const joined = `${base.endsWith("/") ? base : `${base}/`}${request.path.replace(/^\/+/, "")}`;
      url = new URL(joined);
    }
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value))
        for (const item of value) url.searchParams.append(key, String(item));
      else url.searchParams.set(key, String(value));
    }
    return url.href;
  }

  async #attempt(request: HttpRequest, url: string, attemptNumber: number): Promise<HttpResponse> {
    const timeoutMs = request.timeoutMs ?? this.#timeoutMs;
    // One controller ends the attempt on the caller's abort or the timeout;
    // cheaper per request than AbortSignal.any, which also keeps its sources
    // referenced until collected.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new TimeoutMarker());
    }, timeoutMs);
    const callerSignal = request.signal;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
    const signal = controller.signal;
    const done = () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
    };
    const logDebug = this.logger.isLevelEnabled("debug");
    const started = logDebug ? performance.now() : 0;
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": userAgent,
      ...this.#headers,
      ...request.headers,
    };
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers["content-type"] = "application/json";
    }

    let response: Response;
    try {
      response = await this.#fetch(url, {
        method: request.method,
        headers,
        body: body ?? null,
        signal,
      });
    } catch (error) {
      done();
      if (request.signal?.aborted) throw this.#aborted(request, url);
      if (timedOut) throw new TimeoutError(this.#target(request, url), timeoutMs, { cause: error });
      throw new ConnectionError(this.#target(request, url), { cause: error });
    }

    if (logDebug) {
      this.logger.debug(
        {
          method: request.method,
          url: this.#describeUrl(url),
          status: response.status,
          attempt: attemptNumber,
          ms: Math.round(performance.now() - started),
          environment: this.environment,
        },
        "http response",
      );
    }
    if (response.ok) {
      const bodyError = (error: unknown): Error => {
        if (error instanceof SwitchyardError) return error;
        if (request.signal?.aborted) return this.#aborted(request, url);
        if (timedOut)
          return new TimeoutError(this.#target(request, url), timeoutMs, { cause: error });
        return new ConnectionError(this.#target(request, url), {
          cause: error,
          message: `${request.method} ${this.#describeUrl(url)} failed: the connection broke while reading the answer`,
        });
      };
      return { response, url, done, bodyError };
    }

    try {
      const bodyText = this.redact(await response.text());
      throw createApiError({
        status: response.status,
        method: request.method,
        url: this.#describeUrl(url),
        headers: response.headers,
        body: parseMaybeJson(bodyText, response.headers),
        bodyText,
        ...(this.environment ? { environment: this.environment } : {}),
      });
    } catch (error) {
      if (error instanceof SwitchyardError) throw error;
      if (request.signal?.aborted) throw this.#aborted(request, url);
      if (timedOut) throw new TimeoutError(this.#target(request, url), timeoutMs, { cause: error });
      throw new ConnectionError(this.#target(request, url), { cause: error });
    } finally {
      done();
    }
  }

  #target(request: HttpRequest, url: string) {
    return { method: request.method, url: this.#describeUrl(url) };
  }

  #aborted(request: HttpRequest, url: string): AbortedError {
    return new AbortedError(
      `${request.method} ${this.#describeUrl(url)} was aborted by the caller`,
      {
        cause: request.signal?.reason,
      },
    );
  }

  #describeUrl(url: string): string {
    return this.redactUrl(url);
  }
}

class TimeoutMarker extends Error {
  override readonly name = "TimeoutMarker";
}

function isRetryable(error: unknown, safe: boolean): boolean {
  if (error instanceof AbortedError) return false;
  if (error instanceof ConnectionError) return safe || isNotSent(error);
  if (error instanceof TimeoutError) return safe;
  const status = (error as { status?: unknown }).status;
  if (typeof status === "number") return isRetryableStatus(status, safe);
  return false;
}

/** A refused connection never reached the service, so even a write may go again. */
function isNotSent(error: ConnectionError): boolean {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause; depth++) {
    if ((cause as { code?: unknown }).code === "ECONNREFUSED") return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

function retryDelay(error: Error, attemptNumber: number, initialMs: number, maxMs: number): number {
  const headers = (error as { headers?: unknown }).headers;
  if (headers instanceof Headers) {
    const requested = readRetryAfterMs(headers);
    if (requested !== undefined) return requested;
  }
  return backoffDelayMs(attemptNumber, initialMs, maxMs);
}

function parseMaybeJson(text: string, headers: Headers): unknown {
  const type = headers.get("content-type") ?? "";
  const trimmed = text.trim();
  if (type.includes("json") || trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return text;
    }
  }
  return text;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function unwrapStop(error: unknown): unknown {
  if (error instanceof StopRetrying) return error.originalError;
  return error;
}

function checkNonNegativeInteger(value: number, label: string, minimum: number): number {
  if (!Number.isInteger(value) || value < minimum) {
    throw new ConfigurationError(
      `${label} ${String(value)} must be an integer of at least ${minimum}`,
    );
  }
  return value;
}
