import { buildOnFirstUse } from "../build-on-first-use.js";
import { loadZod } from "../load-zod.js";
import type { Logger } from "../logger.js";

/**
 * Transport options every client takes (`ReasonerClient`, `OrderClient`,
 * `MessagingClient`, `DocsClient`): how requests are sent, timed, retried
 * and bounded. Checked in one place, {@link findTransportOptionProblems}.
 */
export interface TransportOptions {
  /**
   * A `fetch` to send requests with instead of the built-in pooled
   * transport: a test double, or a proxy-aware or instrumented fetch.
   * `maxConnections` does not apply to it (its pooling is its own).
   * @default the pooled node:http transport
   */
  fetch?: typeof globalThis.fetch | undefined;
  /** Receives the client's debug and warning lines; silent when omitted. */
  logger?: Logger | undefined;
  /**
   * Per-attempt wait for an answer's headers, in ms, counted from the
   * moment the request has a connection (not while it waits in the pool's
   * queue). @default 60000
   */
  timeoutMs?: number | undefined;
  /** Re-sends after the first attempt, where the request may be re-sent. @default 2 */
  maxRetries?: number | undefined;
  /** First backoff delay in ms; doubles per retry, with jitter. @default 500 */
  initialRetryDelayMs?: number | undefined;
  /** Ceiling of one backoff delay in ms. @default 8000 */
  maxRetryDelayMs?: number | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /**
   * Open connections per origin. The pool is shared by every client of the
   * process that uses the same value; requests beyond it wait in a queue,
   * in order, so a thousand concurrent runs open at most this many sockets
   * to one service.
   * @default 16
   */
  maxConnections?: number | undefined;
  /**
   * Requests of this client in flight at once (from sending to reading the
   * answer, retries and their waits included); more wait their turn, in
   * order. Unlimited when omitted: `maxConnections` already bounds sockets.
   */
  maxConcurrentRequests?: number | undefined;
  /**
   * Largest answer body read, in bytes (a stream's whole body too). A
   * larger one is cut off while it is read and fails with
   * `ResponseTooLargeError`; it is never held whole.
   * @default 33554432 (32 MiB)
   */
  maxResponseBytes?: number | undefined;
}

/** The values used for options a client was not given. */
export const transportDefaults = {
  timeoutMs: 60_000,
  maxRetries: 2,
  initialRetryDelayMs: 500,
  maxRetryDelayMs: 8_000,
  maxConnections: 16,
  maxResponseBytes: 32 * 1024 * 1024,
} as const;

/** The option names of {@link TransportOptions}, for clients that pass them on. */
export const transportOptionNames = [
  "fetch",
  "logger",
  "timeoutMs",
  "maxRetries",
  "initialRetryDelayMs",
  "maxRetryDelayMs",
  "headers",
  "maxConnections",
  "maxConcurrentRequests",
  "maxResponseBytes",
] as const satisfies readonly (keyof TransportOptions)[];

function integerAtLeast(minimum: number) {
  const { z } = loadZod();
  return z
    .custom<number>((value) => Number.isSafeInteger(value) && (value as number) >= minimum, {
      error: (issue) => `${describeOption(issue.input)} must be an integer of at least ${minimum}`,
    })
    .optional();
}

/** Built on first use, so importing Switchyard does not load zod. */
function buildTransportOptionsSchema() {
  const { z } = loadZod();
  return z.object({
    fetch: z
      .custom<typeof globalThis.fetch>((value) => typeof value === "function", {
        error: (issue) => `${describeOption(issue.input)} is not a function`,
      })
      .optional(),
    logger: z
      .custom<Logger>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          typeof (value as { child?: unknown }).child === "function",
        { error: (issue) => `${describeOption(issue.input)} is not a pino logger` },
      )
      .optional(),
    timeoutMs: integerAtLeast(1),
    maxRetries: integerAtLeast(0),
    initialRetryDelayMs: integerAtLeast(0),
    maxRetryDelayMs: integerAtLeast(0),
    headers: z
      .record(z.string(), z.string(), {
        error: (issue) =>
          `${describeOption(issue.input)} must be an object of header names to string values`,
      })
      .optional(),
    maxConnections: integerAtLeast(1),
    maxConcurrentRequests: integerAtLeast(1),
    maxResponseBytes: integerAtLeast(1),
  });
}

const transportOptionsSchema = buildOnFirstUse(buildTransportOptionsSchema);

/**
 * Every problem with the transport options in `options` (other keys are
 * ignored), one sentence each, starting with the option's name; empty when
 * all are usable.
 */
export function findTransportOptionProblems(options: object): string[] {
  const result = transportOptionsSchema().safeParse(options);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
}

function describeOption(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (typeof value === "object" && value !== null)
    return Array.isArray(value) ? "an array" : "an object";
  return String(value);
}

/** The transport options of a client's options object, to hand to the HTTP core. */
export function pickTransportOptions(options: TransportOptions): TransportOptions {
  const picked: Record<string, unknown> = {};
  for (const name of transportOptionNames) {
    if (options[name] !== undefined) picked[name] = options[name];
  }
  return picked as TransportOptions;
}
