import { ApiError } from "../../errors/api-error.js";
import { AbortedError, ConnectionError, TimeoutError } from "../../errors/transport-errors.js";
import type { HttpClient } from "../../internal/http/http-client.js";
import { isRetryableStatus } from "../../internal/http/retry-policy.js";
import { withRetries } from "../../internal/http/with-retries.js";
import type { Logger } from "../../internal/logger.js";
import { ChatCompletionAssembler, type StreamSource } from "./assemble-completion.js";
import type { ChatCallOptions, ChatCompletion, ChatStreamEvent } from "./chat-types.js";
import { completionToEvents } from "./completion-to-events.js";
import { parseChatCompletion } from "./parse-chat-completion.js";
import { readBodyChunks } from "./read-body-chunks.js";
import { readProviderError } from "./read-provider-error.js";
import { readSseEvents, type SseMessage } from "./read-sse-events.js";
import { StreamError } from "./stream-error.js";

/** Everything one streamed request needs. */
export interface StreamChatContext {
  /** The client's HTTP core; its retry settings space the re-sends. */
  http: HttpClient;
  /** The JSON body, `stream: true` included. */
  body: Record<string, unknown>;
  options: ChatCallOptions | undefined;
  streamIdleTimeoutMs: number;
  logger: Logger;
}

/** A stream up to its first events: what is left to read, or how it ended. */
interface OpenedStream {
  /** The first events (empty only when the stream ended without any). */
  events: ChatStreamEvent[];
  /** Set when the stream is over: the answer as a whole. */
  completion?: ChatCompletion;
  /** An error met in the same read as `events`: it surfaces after them. */
  error?: unknown;
  /** The rest of the stream, when not over. */
  rest?: { assembler: ChatCompletionAssembler; batches: AsyncGenerator<SseMessage[], void> };
}

/**
 * Sends a streamed chat request and yields its normalized events in batches
 * (never empty; one per network read), returning the assembled
 * `chat.completion`. Until the first event is read, any failure that may
 * pass (connection, timeout, 408/409/429/5xx, an error event, an empty
 * body) sends the request again, at most `maxRetries` times in all,
 * honouring Retry-After; after it, errors surface as they are.
 */
export async function* streamChatCompletion(
  context: StreamChatContext,
  settle: (completion: ChatCompletion) => void = () => {},
): AsyncGenerator<ChatStreamEvent[], ChatCompletion, undefined> {
  const { http } = context;
  const signal = context.options?.signal;
  const opened = await withRetries(() => openStream(context), {
    schedule: http.retrySchedule,
    shouldRetry: mayResend,
    onRetry: (error, attempt, delayMs) => {
      context.logger.warn(
        {
          attempt,
          retryInMs: delayMs,
          error: http.redact(error instanceof Error ? error.message : String(error)),
        },
        "chat stream failed before its first event, sending it again",
      );
    },
    signal,
    abortedError: () => abortedError(http.redactUrl(http.buildUrl({ path: "" })), signal),
  });
  if (opened.completion) {
    settle(opened.completion);
    if (opened.events.length > 0) yield opened.events;
    return opened.completion;
  }
  if (opened.error !== undefined || !opened.rest) {
    if (opened.events.length > 0) yield opened.events;
    throw opened.error;
  }
  const { assembler, batches } = opened.rest;
  try {
    yield opened.events;
    let events: ChatStreamEvent[] = [];
    for (;;) {
      const next = await batches.next();
      if (next.done) break;
      const done = acceptBatch(assembler, next.value, events);
      if (done.error !== undefined) {
        if (events.length > 0) yield events;
        throw done.error;
      }
      if (events.length > 0) {
        yield events;
        events = [];
      }
      if (done.finished) {
        await drain(batches);
        break;
      }
    }
    const completion = assembler.finish(events);
    settle(completion);
    if (events.length > 0) yield events;
    return completion;
  } finally {
    // Also when the consumer stops early: cancels the body.
    await batches.return();
  }
}

/**
 * Sends the request and reads until its first events (or its end): the
 * part of a stream that may be sent again when it fails.
 */
async function openStream(context: StreamChatContext): Promise<OpenedStream> {
  const { http, options } = context;
  const signal = options?.signal;
  const sent = await http.send({
    method: "POST",
    path: "",
    body: context.body,
    headers: { accept: "text/event-stream" },
    idempotent: true,
    retry: false,
    signal,
    timeoutMs: options?.timeoutMs,
  });
  // timeoutMs bounds the wait for the answer's headers; from here on the
  // idle timeout bounds each gap between chunks, however long the answer.
  sent.done();
  const target = { method: "POST", url: http.redactUrl(sent.url) };
  const source: StreamSource = {
    ...target,
    redact: (text) => http.redact(text),
    redactValue: (value) => http.redactValue(value),
  };
  const chunks = readBodyChunks(sent.response.reader(), {
    idleTimeoutMs: context.streamIdleTimeoutMs,
    signal,
    idleTimeoutError: () =>
      new TimeoutError(target, context.streamIdleTimeoutMs, {
        message: `${target.method} ${target.url}: the stream sent nothing for ${context.streamIdleTimeoutMs} ms; raise streamIdleTimeoutMs if the provider pauses longer`,
      }),
    abortedError: () => abortedError(target.url, signal),
    readError: (error) => sent.bodyError(error),
  });
  const contentType = sent.response.header("content-type") ?? "";
  if (contentType.includes("application/json")) {
    const completion = await readJsonAnswer(chunks, source);
    return { events: completionToEvents(completion), completion };
  }
  const assembler = new ChatCompletionAssembler(source);
  const batches = readSseEvents(chunks);
  const events: ChatStreamEvent[] = [];
  let handedOn = false;
  try {
    for (;;) {
      const next = await batches.next();
      if (next.done) break;
      const done = acceptBatch(assembler, next.value, events);
      if (done.error !== undefined) {
        // Events of the batch's earlier messages still go out first, as they
        // would have one by one; the error then surfaces after them.
        if (events.length > 0) return { events, error: done.error };
        throw done.error;
      }
      if (done.finished) {
        await drain(batches);
        break;
      }
      if (events.length > 0) {
        handedOn = true;
        return { events, rest: { assembler, batches } };
      }
    }
    return { events, completion: assembler.finish(events) };
  } finally {
    // Every way out but handing the rest on closes the body: an error read
    // together with content would otherwise leave the connection open and
    // the idle timer holding the process.
    if (!handedOn) await batches.return().catch(() => {});
  }
}

/**
 * Reads what is left of a finished answer (after `[DONE]`, usually only the
 * end of the chunked body) so that its connection goes back to the pool
 * instead of being destroyed: a cancelled body costs a new connection for
 * the next request. Bounded by the idle timeout and `maxResponseBytes`.
 */
async function drain(batches: AsyncGenerator<SseMessage[], void>): Promise<void> {
  while (!(await batches.next()).done) {
    // Events after the end of the answer are ignored.
  }
}

/** Feeds one read's messages to the assembler; stops at the end of the answer or an error. */
function acceptBatch(
  assembler: ChatCompletionAssembler,
  messages: readonly SseMessage[],
  events: ChatStreamEvent[],
): { finished: boolean; error?: unknown } {
  try {
    for (const message of messages) {
      if (assembler.accept(message, events)) return { finished: true };
    }
    return { finished: false };
  } catch (error) {
    return { finished: false, error };
  }
}

async function readJsonAnswer(
  chunks: AsyncIterable<Uint8Array>,
  source: StreamSource,
): Promise<ChatCompletion> {
  // Bytes kept as they come and decoded once: an answer cut off at the cap
  // leaves no decoded half behind.
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    parts.push(chunk);
    size += chunk.byteLength;
  }
  const text = Buffer.concat(parts, size).toString("utf8");
  const snippet = () => source.redact(text.length > 200 ? `${text.slice(0, 200)}...` : text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StreamError(
      {
        kind: "malformed",
        method: source.method,
        url: source.url,
        detail: `the answer is labelled JSON but is not: ${snippet()}`,
      },
      { cause: error },
    );
  }
  const providerError = readProviderError(value);
  if (providerError) {
    throw new StreamError({
      kind: "provider_error",
      method: source.method,
      url: source.url,
      detail: source.redact(providerError.message),
      code: providerError.code,
      type: providerError.type,
      body: source.redactValue(providerError.body),
    });
  }
  return parseChatCompletion(value, { method: source.method, url: source.url, snippet });
}

function mayResend(error: unknown): boolean {
  if (error instanceof AbortedError) return false;
  if (error instanceof StreamError) return error.kind !== "malformed";
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  if (error instanceof ApiError) return isRetryableStatus(error.status, true);
  return false;
}

function abortedError(url: string, signal: AbortSignal | undefined): AbortedError {
  return new AbortedError(`POST ${url} was aborted by the caller`, { cause: signal?.reason });
}
