import { createApiError } from "../../errors/api-error.js";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { SwitchyardError } from "../../errors/switchyard-error.js";
import {
  AbortedError,
  ConnectionError,
  ResponseTooLargeError,
  TimeoutError,
} from "../../errors/transport-errors.js";
import { LazyAbortController } from "../lazy-abort-controller.js";
import { type Logger, redactingLogger, silentLogger } from "../logger.js";
import { SecretRegistry } from "../redact.js";
import { createFetchTransport } from "./fetch-transport.js";
import { createNodeTransport } from "./node-transport.js";
import { onAbort } from "./on-abort.js";
import { RequestSlots } from "./request-slots.js";
import { isRetryableStatus, type RetrySchedule } from "./retry-policy.js";
import {
  RedirectSignal,
  ResponseTooLargeSignal,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from "./transport.js";
import {
  findTransportOptionProblems,
  type TransportOptions,
  transportDefaults,
} from "./transport-options.js";
import { parseServiceUrl } from "./url-policy.js";
import { retryAfterFirstFailure } from "./with-retries.js";

/** What the HTTP core takes: the shared transport options and the service's address and credential. */
export interface HttpClientOptions extends TransportOptions {
  /** Base address; request paths are appended to it. */
  baseUrl: string;
  /** Label of the base URL option in configuration errors. @default "baseUrl" */
  baseUrlLabel?: string | undefined;
  /** Bearer credential sent as `Authorization: Bearer <token>`; never logged. */
  token?: string | undefined;
  /** Shown in logs and errors, e.g. `sandbox` or `production`. */
  environment?: string | undefined;
  /**
   * Further secrets to scrub from errors and logs (the token always is): the
   * owning client's registry, or plain values.
   */
  secrets?: SecretRegistry | readonly string[] | undefined;
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
  response: TransportResponse;
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
 * The shared transport under every client: a pooled keep-alive connection
 * per origin (or the caller's `fetch`), bearer auth, JSON bodies,
 * per-attempt timeouts, the caller's AbortSignal, retries (honouring
 * Retry-After), a cap on the size of answers, typed errors, and secrets
 * kept out of both.
 */
export class HttpClient {
  readonly baseUrl: URL;
  readonly environment: string | undefined;
  readonly logger: Logger;
  readonly #options: HttpClientOptions;
  /** `Bearer <token>`, made once. */
  readonly #authorization: string | undefined;
  readonly #transport: Transport;
  readonly #timeoutMs: number;
  readonly #schedule: RetrySchedule;
  readonly #maxResponseBytes: number;
  /** The headers of every request, before a request's own and the authorization. */
  readonly #headers: Record<string, string>;
  /** The secrets scrubbed from this transport's errors and logs. */
  readonly secrets: SecretRegistry;
  readonly #slots: RequestSlots | undefined;
  #lastUrl: string | undefined;
  #lastRedactedUrl = "";

  constructor(options: HttpClientOptions) {
    const problems = findTransportOptionProblems(options);
    if (problems.length > 0) throw new ConfigurationError(problems);
    this.baseUrl = parseServiceUrl(options.baseUrl, options.baseUrlLabel ?? "baseUrl");
    this.#options = options;
    this.environment = options.environment;
    this.secrets =
      options.secrets instanceof SecretRegistry
        ? options.secrets
        : new SecretRegistry().add(...(options.secrets ?? []));
    this.secrets.add(options.token);
    this.logger = options.logger ? redactingLogger(options.logger, this.secrets) : silentLogger();
    this.#authorization = options.token ? `Bearer ${options.token}` : undefined;
    this.#transport = options.fetch
      ? createFetchTransport(options.fetch)
      : createNodeTransport(options.maxConnections ?? transportDefaults.maxConnections);
    this.#timeoutMs = options.timeoutMs ?? transportDefaults.timeoutMs;
    this.#schedule = {
      maxRetries: options.maxRetries ?? transportDefaults.maxRetries,
      initialRetryDelayMs: options.initialRetryDelayMs ?? transportDefaults.initialRetryDelayMs,
      maxRetryDelayMs: options.maxRetryDelayMs ?? transportDefaults.maxRetryDelayMs,
    };
    this.#maxResponseBytes = options.maxResponseBytes ?? transportDefaults.maxResponseBytes;
    this.#slots =
      options.maxConcurrentRequests === undefined
        ? undefined
        : new RequestSlots(options.maxConcurrentRequests);
    this.#headers = { accept: "application/json", "user-agent": userAgent, ...options.headers };
  }

  /** A client with the same settings that also scrubs `secrets` (per-call values such as a passphrase). */
  withSecrets(secrets: readonly string[]): HttpClient {
    return new HttpClient({
      ...this.#options,
      secrets: new SecretRegistry().add(...secrets).include(this.secrets),
    });
  }

  /** The retry settings in use, for readers that retry on their own (a stream before its first event). */
  get retrySchedule(): RetrySchedule {
    return this.#schedule;
  }

  /** Scrubs this client's secrets (and anything token-shaped) from text. */
  redact(text: string): string {
    return this.secrets.redactText(text);
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
    return this.secrets.redactValue(value);
  }

  /** Sends a request and parses a JSON answer (an empty body gives `undefined`). */
  async requestJson<T>(request: HttpRequest): Promise<T> {
    const { response, url, done, bodyError } = await this.send(request);
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
          `${request.method} ${this.#describeUrl(url)} answered ${response.status} with a body that is not JSON: ${this.redact(text.slice(0, 200))}`,
          { cause: this.secrets.redactError(error) },
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
    if (!slots) return await this.#sendWithRetries(request, url);
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

  /**
   * The first attempt, and the retries only if it fails: the retry
   * machinery (its closures, p-retry) costs a request that succeeds
   * nothing.
   */
  #sendWithRetries(request: HttpRequest, url: string): Promise<HttpResponse> {
    return this.#attempt(request, url, 1).catch((error: unknown) =>
      this.#retry(error, request, url),
    );
  }

  #retry(firstFailure: unknown, request: HttpRequest, url: string): Promise<HttpResponse> {
    const safe =
      safeMethods.has(request.method) ||
      request.idempotent === true ||
      request.idempotencyKey !== undefined;
    const schedule =
      request.retry === false ? { ...this.#schedule, maxRetries: 0 } : this.#schedule;
    const attempt = (attemptNumber: number) => this.#attempt(request, url, attemptNumber);
    return retryAfterFirstFailure(firstFailure, attempt, {
      schedule,
      shouldRetry: (error) => isRetryable(error, safe),
      onRetry: (error, retryNumber, delayMs) => {
        this.logger.warn(
          {
            method: request.method,
            url: this.#describeUrl(url),
            attempt: retryNumber,
            retryInMs: delayMs,
            error: this.redact(error instanceof Error ? error.message : String(error)),
          },
          "request failed, retrying",
        );
      },
      signal: request.signal,
      abortedError: () => this.#aborted(request, url),
    });
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
    const logDebug = this.logger.isLevelEnabled("debug");
    const started = logDebug ? performance.now() : 0;
    const headers: Record<string, string> = { ...this.#headers, ...request.headers };
    if (this.#authorization) headers.authorization = this.#authorization;
    if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers["content-type"] = "application/json";
    }
    const attempt = new Attempt({
      method: request.method,
      url,
      headers,
      body,
      maxResponseBytes: this.#maxResponseBytes,
      timeoutMs: request.timeoutMs ?? this.#timeoutMs,
      callerSignal: request.signal,
    });

    let response: TransportResponse;
    try {
      response = await this.#transport(attempt);
    } catch (error) {
      attempt.done();
      throw this.#failure(error, request, attempt);
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
    if (response.status >= 200 && response.status < 300) {
      const client = this;
      return {
        response,
        url,
        done() {
          attempt.done();
        },
        bodyError(error: unknown): Error {
          return client.#bodyError(error, request, attempt);
        },
      };
    }

    try {
      const bodyText = this.redact(await response.text());
      throw createApiError({
        status: response.status,
        method: request.method,
        url: this.#describeUrl(url),
        headers: this.secrets.redactHeaders(response.headers),
        body: parseMaybeJson(bodyText, response.headers),
        bodyText,
        ...(this.environment ? { environment: this.environment } : {}),
      });
    } catch (error) {
      throw this.#failure(error, request, attempt);
    } finally {
      attempt.done();
    }
  }

  /** Maps a failure of an attempt (sending, or reading a body) to its typed error. */
  #failure(thrown: unknown, request: HttpRequest, attempt: Attempt): Error {
    if (thrown instanceof SwitchyardError) return thrown;
    const error = this.secrets.redactError(thrown);
    if (request.signal?.aborted) return this.#aborted(request, attempt.url);
    if (attempt.timedOut) {
      return new TimeoutError(this.#target(request, attempt.url), attempt.timeoutMs, {
        cause: error,
      });
    }
    if (error instanceof RedirectSignal) {
      return new SwitchyardError(
        `${request.method} ${this.#describeUrl(attempt.url)} answered with ${
          error.location === undefined
            ? "a redirect whose target the fetch option hides"
            : `a redirect to ${this.redact(error.location)} that the fetch option followed`
        }; redirects are not followed (they send the request and its headers elsewhere): set the client's address to the one that answers, and pass a fetch that honours redirect: "manual"`,
      );
    }
    if (error instanceof ResponseTooLargeSignal) {
      return new ResponseTooLargeError(this.#target(request, attempt.url), error.limitBytes, {
        cause: error,
      });
    }
    return new ConnectionError(this.#target(request, attempt.url), { cause: error });
  }

  /** {@link HttpClient.#failure} for a body that broke while it was read. */
  #bodyError(thrown: unknown, request: HttpRequest, attempt: Attempt): Error {
    const typed = this.#failure(thrown, request, attempt);
    if (typed instanceof ConnectionError && !(thrown instanceof SwitchyardError)) {
      return new ConnectionError(this.#target(request, attempt.url), {
        cause: this.secrets.redactError(thrown),
        message: `${request.method} ${this.#describeUrl(attempt.url)} failed: the connection broke while reading the answer`,
      });
    }
    return typed;
  }

  #target(request: HttpRequest, url: string) {
    return { method: request.method, url: this.#describeUrl(url) };
  }

  #aborted(request: HttpRequest, url: string): AbortedError {
    return new AbortedError(
      `${request.method} ${this.#describeUrl(url)} was aborted by the caller`,
      {
        cause: this.secrets.redactError(request.signal?.reason),
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

/**
 * One attempt of a request, as the transport sends it: ended on the
 * caller's abort or on the timeout, which starts once the request has a
 * connection, through the transport's abort handler and (when a transport
 * read it) a signal made on first read. An object with methods, not
 * closures: it is made for every request, and cheaper than AbortSignal.any,
 * which also keeps its sources referenced until collected.
 */
class Attempt implements TransportRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly maxResponseBytes: number;
  readonly timeoutMs: number;
  /** True once the timeout ended the attempt. */
  timedOut = false;
  readonly #controller = new LazyAbortController();
  #abortHandler: ((reason: unknown) => void) | undefined;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #stopFollowing: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body: string | undefined;
    maxResponseBytes: number;
    timeoutMs: number;
    callerSignal: AbortSignal | undefined;
  }) {
    this.method = options.method;
    this.url = options.url;
    this.headers = options.headers;
    this.body = options.body;
    this.maxResponseBytes = options.maxResponseBytes;
    this.timeoutMs = options.timeoutMs;
    this.#callerSignal = options.callerSignal;
    // Through the fan-out: one listener on a signal shared by many requests.
    this.#stopFollowing = options.callerSignal
      ? onAbort(options.callerSignal, () => this.handleEvent())
      : undefined;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  setAbortHandler(handler: ((reason: unknown) => void) | undefined): void {
    this.#abortHandler = handler;
    if (handler && this.#controller.aborted) handler(this.#controller.reason);
  }

  onConnection(): void {
    this.#timer = setTimeout(timeOut, this.timeoutMs, this);
  }

  /** The caller's signal fired. */
  handleEvent(): void {
    this.#abort(this.#callerSignal?.reason);
  }

  timeOut(): void {
    this.timedOut = true;
    this.#abort(new TimeoutMarker());
  }

  #abort(reason: unknown): void {
    if (this.#controller.aborted) return;
    this.#controller.abort(reason);
    this.#abortHandler?.(reason);
  }

  /** Releases the timer and the link to the caller's signal. */
  done(): void {
    clearTimeout(this.#timer);
    this.#stopFollowing?.();
  }
}

function timeOut(attempt: Attempt): void {
  attempt.timeOut();
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
