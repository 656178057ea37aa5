import { ApiError } from "../../errors/api-error.js";
import { AbortedError, ConnectionError, TimeoutError } from "../../errors/transport-errors.js";
import { abortableDelay } from "../../internal/http/abortable-delay.js";
import type { HttpClient } from "../../internal/http/http-client.js";
import {
  backoffDelayMs,
  isRetryableStatus,
  readRetryAfterMs,
} from "../../internal/http/retry-policy.js";
import type { Logger } from "../../internal/logger.js";
import { ChatCompletionAssembler, type StreamSource } from "./assemble-completion.js";
import type { ChatCallOptions, ChatCompletion, ChatStreamEvent } from "./chat-types.js";
import { completionToEvents } from "./completion-to-events.js";
import { parseChatCompletion } from "./parse-chat-completion.js";
import { readBodyChunks } from "./read-body-chunks.js";
import { readProviderError } from "./read-provider-error.js";
import { readSseEvents } from "./read-sse-events.js";
import { StreamError } from "./stream-error.js";

/** Everything one streamed request needs. */
export interface StreamChatContext {
  http: HttpClient;
  /** The JSON body, `stream: true` included. */
  body: Record<string, unknown>;
  options: ChatCallOptions | undefined;
  maxRetries: number;
  initialRetryDelayMs: number;
  maxRetryDelayMs: number;
  streamIdleTimeoutMs: number;
  logger: Logger;
}

/**
 * Sends a streamed chat request and yields its normalized events in batches
 * (never empty; one per network read), returning the assembled
 * `chat.completion`. Until the first event is yielded, any
 * failure that may pass (connection, timeout, 408/409/429/5xx, an error
 * event, an empty body) sends the request again, at most `maxRetries` times
 * in all, honouring Retry-After; after it, errors surface as they are.
 */
export async function* streamChatCompletion(
  context: StreamChatContext,
  settle: (completion: ChatCompletion) => void = () => {},
): AsyncGenerator<ChatStreamEvent[], ChatCompletion, undefined> {
  const { http, options } = context;
  const signal = options?.signal;
  for (let attempt = 1; ; attempt++) {
    let yielded = false;
    try {
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
      const body = sent.response.body;
      if (!body) {
        throw new StreamError({ kind: "incomplete", ...target, detail: "the answer had no body" });
      }
      const chunks = readBodyChunks(body, {
        idleTimeoutMs: context.streamIdleTimeoutMs,
        signal,
        idleTimeoutError: () =>
          new TimeoutError(target, context.streamIdleTimeoutMs, {
            message: `${target.method} ${target.url}: the stream sent nothing for ${context.streamIdleTimeoutMs} ms; raise streamIdleTimeoutMs if the provider pauses longer`,
          }),
        abortedError: () => abortedError(target.url, signal),
        readError: (error) => sent.bodyError(error),
      });
      const contentType = sent.response.headers.get("content-type") ?? "";
      if (contentType.includes("application/json")) {
        const completion = await readJsonAnswer(chunks, source);
        settle(completion);
        yielded = true;
        yield completionToEvents(completion);
        return completion;
      }
      const assembler = new ChatCompletionAssembler(source);
      let events: ChatStreamEvent[] = [];
      let done = false;
      for await (const messages of readSseEvents(chunks)) {
        try {
          for (const message of messages) {
            done = assembler.accept(message, events);
            if (done) break;
          }
        } catch (error) {
          // Events of the batch's earlier messages still go out first, as they
          // would have one by one; the error then surfaces after them.
          if (events.length > 0) {
            yielded = true;
            yield events;
          }
          throw error;
        }
        if (events.length > 0) {
          yielded = true;
          yield events;
          events = [];
        }
        if (done) break;
      }
      const completion = assembler.finish(events);
      settle(completion);
      if (events.length > 0) {
        yielded = true;
        yield events;
      }
      return completion;
    } catch (error) {
      if (yielded || attempt > context.maxRetries || !mayResend(error)) throw error;
      const delay = retryDelay(error, attempt, context);
      context.logger.warn(
        { attempt, retryInMs: delay, error: http.redact((error as Error).message) },
        "chat stream failed before its first event, sending it again",
      );
      try {
        await abortableDelay(delay, signal);
      } catch {
        throw abortedError(http.redact(http.buildUrl({ path: "" })), signal);
      }
    }
  }
}

async function readJsonAnswer(
  chunks: AsyncIterable<Uint8Array>,
  source: StreamSource,
): Promise<ChatCompletion> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  for await (const chunk of chunks) parts.push(decoder.decode(chunk, { stream: true }));
  parts.push(decoder.decode());
  const text = parts.join("");
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
      body: source.redactValue((value as { error: unknown }).error),
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

function retryDelay(error: unknown, attempt: number, context: StreamChatContext): number {
  if (error instanceof ApiError) {
    const requested = readRetryAfterMs(error.headers);
    if (requested !== undefined) return requested;
  }
  return backoffDelayMs(attempt, context.initialRetryDelayMs, context.maxRetryDelayMs);
}

function abortedError(url: string, signal: AbortSignal | undefined): AbortedError {
  return new AbortedError(`POST ${url} was aborted by the caller`, { cause: signal?.reason });
}
