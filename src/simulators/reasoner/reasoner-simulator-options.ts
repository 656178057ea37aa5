import type { ReasonerScenarioName } from "./reasoner-scenarios.js";
import type { ScenarioFunction } from "./scripted-answer.js";
import type { StreamChunking, StreamStyle } from "./stream-style.js";

/** Options of {@link startReasonerSimulator}. */
export interface ReasonerSimulatorOptions {
  /** Port to listen on. @default 0 (a free port) */
  port?: number;
  /** Loopback address to listen on. @default "127.0.0.1" */
  host?: string;
  /** The bearer key clients must send. @default a random `sk-sim-...` key */
  apiKey?: string;
  /**
   * The scripted model: a built-in scenario name, or a function from the
   * request to the answer for your own scripts.
   * @default "auto"
   */
  scenario?: ReasonerScenarioName | ScenarioFunction;
  /** How streamed answers are cut into chunks. @default "openai" */
  chunking?: StreamChunking | StreamStyle;
  /** Pause between streamed writes in milliseconds; 0 only yields to the event loop. @default 0 */
  chunkDelayMs?: number;
  /**
   * `paced`: each event of a streamed answer is its own write, with
   * `chunkDelayMs` (or a turn of the event loop) between them, so clients see
   * events arrive one by one. `burst`: the events go back to back in large
   * writes, so a benchmark measures the client's reading, not this pacing.
   * @default "paced"
   */
  streamPacing?: "paced" | "burst";
  /** Chunk count of the `long-stream` scenario. @default 1000 */
  longStreamChunks?: number;
  /** Keep each request in `requests`; turn off for long benchmarks. @default true */
  recordRequests?: boolean;
}

/** A request as the simulator received it, without the authorization header. */
export interface RecordedReasonerRequest {
  method: string;
  path: string;
  /** Lower-case header names; `authorization` is left out. */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, the raw text when it is not JSON, `undefined` when empty. */
  body: unknown;
}

/**
 * A fault the simulator plays on the next requests instead of answering
 * normally. With `status`, it answers that status before reading the
 * request; with `midStreamError`, a valid request gets a stream that fails:
 * `error-event` sends `event: error` with an error object and ends,
 * `error-data` sends a data event with a top-level `error` object then
 * `[DONE]`, `cut` closes the connection before the finish chunk. A
 * non-streaming request gets HTTP 200 with the error object for the first
 * two and a closed connection for `cut`.
 */
export interface ReasonerFault {
  /** HTTP status of the answer; required unless `midStreamError` is set. */
  status?: number;
  /** Answer body (JSON unless a string); a status-matched `{error}` object by default. */
  body?: unknown;
  /** Extra answer headers, e.g. `{"retry-after": "1"}`. */
  headers?: Record<string, string>;
  /** How many requests in a row get this fault. @default 1 */
  times?: number;
  midStreamError?: "error-event" | "error-data" | "cut";
}

/** A running reasoner simulator. */
export interface ReasonerSimulator {
  /**
   * Address to post chat requests to, `http://127.0.0.1:PORT/v1/chat/completions`.
   * `GET /v1/models` beside it lists the known models; other paths answer 404.
   */
  url: string;
  /** The bearer key the simulator expects. */
  apiKey: string;
  /** Every request received, in order (unless `recordRequests` is false). */
  requests: RecordedReasonerRequest[];
  /** Queues a fault for the next chat request(s); faults play in the order queued. */
  failNext(fault: ReasonerFault): void;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}
