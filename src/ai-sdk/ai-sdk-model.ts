import { randomUUID } from "node:crypto";
import type * as ProviderModule from "@ai-sdk/provider";
import type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelStream,
  ModelStreamEvent,
} from "../agent/model.js";
import type { ChatCompletion } from "../clients/reasoner/chat-types.js";
import { createChatStream } from "../clients/reasoner/create-chat-stream.js";
import { StreamError } from "../clients/reasoner/stream-error.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { RequestTarget } from "../errors/transport-errors.js";
import { onAbort } from "../internal/http/on-abort.js";
import { transportDefaults } from "../internal/http/transport-options.js";
import { withRetries } from "../internal/http/with-retries.js";
import { loadOptionalPeer } from "../internal/load-optional-peer.js";
import { componentLogger, type Logger } from "../internal/logger.js";
import { SecretRegistry } from "../internal/redact.js";
import {
  type AiSdkLanguageModel,
  type SpecCallOptions,
  specCalls,
} from "./ai-sdk-language-model.js";
import type { AiSdkModelOptions } from "./ai-sdk-model-options.js";
import { AnswerAssembler } from "./answer-assembler.js";
import { findAiSdkModelProblems } from "./find-ai-sdk-model-problems.js";
import { toSpecCallOptions } from "./to-spec-call-options.js";
import { isRetryableFailure, toStreamError, toSwitchyardError } from "./to-switchyard-error.js";

export type { AiSdkLanguageModel } from "./ai-sdk-language-model.js";
export type { AiSdkModelOptions } from "./ai-sdk-model-options.js";

/**
 * Any AI SDK language model as Switchyard's `Model`: the agent's requests
 * become the AI SDK provider specification's call options, and the
 * model's answers, whole or streamed, Switchyard's answers and stream
 * events. Failures are Switchyard's errors, as the reasoning client throws
 * them (`RateLimitError`, `BadRequestError`, `ConnectionError`,
 * `StreamError`, `AbortedError`, ...), and the ones the provider calls
 * retryable (408, 409, 429, 5xx, no connection) and timeouts are sent
 * again, with backoff and the `Retry-After` the provider asked for; a
 * stream only before its first part. Models of specification `v2`, `v3`
 * and `v4` are taken. Needs the package `@ai-sdk/provider` (an optional
 * peer dependency; every AI SDK provider package brings it).
 *
 * @example
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * import { Agent } from "switchyard-agents";
 * import { aiSdkModel } from "switchyard-agents/ai-sdk";
 *
 * const agent = new Agent({ model: aiSdkModel(anthropic("claude-sonnet-4-5")), tools, approver });
 * ```
 */
export function aiSdkModel(
  languageModel: AiSdkLanguageModel,
  options: AiSdkModelOptions = {},
): Model {
  const problems = findAiSdkModelProblems(languageModel, options);
  if (problems.length > 0) throw new ConfigurationError(problems);
  const provider = loadOptionalPeer<typeof ProviderModule>("@ai-sdk/provider", "aiSdkModel");
  return new AiSdkModel(languageModel, options, provider);
}

class AiSdkModel implements Model {
  readonly #languageModel: AiSdkLanguageModel;
  readonly #options: AiSdkModelOptions;
  readonly #provider: typeof ProviderModule;
  readonly #target: RequestTarget;
  readonly #logger: Logger;

  constructor(
    languageModel: AiSdkLanguageModel,
    options: AiSdkModelOptions,
    provider: typeof ProviderModule,
  ) {
    this.#languageModel = languageModel;
    this.#options = { ...options };
    this.#provider = provider;
    this.#logger = componentLogger(options.logger, "ai-sdk-model", new SecretRegistry());
    this.#target = {
      method: "POST",
      url: `${languageModel.provider}/${languageModel.modelId}`,
    };
  }

  async complete(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const callOptions = this.#callOptions(request);
    const calls = specCalls(this.#languageModel);
    const result = await this.#withRetries(
      (abortSignal) => calls.generate({ ...callOptions, abortSignal }),
      options,
      false,
    );
    const assembler = this.#assembler();
    assembler.acceptContent(result.content, result.finishReason, result.usage, result.response);
    return assembler.completion();
  }

  stream(request: ModelRequest, options: ModelCallOptions = {}): ModelStream {
    const callOptions = this.#callOptions(request);
    return createChatStream((settle) => this.#readStream(callOptions, options, settle));
  }

  async *#readStream(
    callOptions: SpecCallOptions,
    options: ModelCallOptions,
    settle: (completion: ChatCompletion) => void,
  ): AsyncGenerator<ModelStreamEvent[], ChatCompletion, undefined> {
    const calls = specCalls(this.#languageModel);
    // The stream's own signal: it follows the caller's, and cancels the
    // provider's request on every way out (an early stop included).
    const controller = new AbortController();
    const stopFollowing = follow(options.signal, controller);
    try {
      const { stream } = await this.#withRetries(
        (abortSignal) => calls.stream({ ...callOptions, abortSignal }),
        { ...options, signal: controller.signal },
        true,
      );
      const reader = stream.getReader();
      const assembler = this.#assembler();
      // Built once, at the finish part: what `settle` hands out and what the stream returns.
      let completion: ChatCompletion | undefined;
      try {
        for (;;) {
          const next = await reader.read().catch((error: unknown) => {
            throw this.#failure(error, controller.signal, undefined);
          });
          if (next.done) break;
          const part = next.value;
          if (part.type === "error") throw toStreamError(part.error, this.#target);
          const events = assembler.accept(part);
          if (part.type === "finish") {
            completion = assembler.completion();
            settle(completion);
          }
          if (events.length > 0) yield events;
        }
      } finally {
        // Both, for a provider that watches only one of them.
        reader.cancel().catch(() => {});
        reader.releaseLock();
        controller.abort();
      }
      if (completion === undefined) {
        throw new StreamError({
          kind: "incomplete",
          method: this.#target.method,
          url: this.#target.url,
          detail: "the stream ended without a finish part",
        });
      }
      return completion;
    } finally {
      stopFollowing();
      controller.abort();
    }
  }

  /**
   * Runs one call, timed out after `timeoutMs` and cut short by the
   * caller's signal, and again while it fails in a way worth another try,
   * with the HTTP core's {@link withRetries} (p-retry's backoff, the
   * provider's `Retry-After` as the floor of a wait). `call` gets the
   * signal to hand the provider; with `keepLinked` (a stream, whose body is
   * read after the call returns) it keeps following `options.signal` after
   * success.
   */
  async #withRetries<T>(
    call: (signal: AbortSignal) => PromiseLike<T>,
    options: ModelCallOptions,
    keepLinked: boolean,
  ): Promise<T> {
    const retryable = new WeakSet<object>();
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
    const attempt = async (): Promise<T> => {
      const controller = new AbortController();
      const stopFollowing = follow(options.signal, controller);
      let timedOut = false;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              controller.abort();
            }, timeoutMs);
      let succeeded = false;
      try {
        const value = await call(controller.signal);
        succeeded = true;
        return value;
      } catch (error) {
        const failure = this.#failure(error, options.signal, timedOut ? timeoutMs : undefined);
        if (timedOut || isRetryableFailure(error, this.#provider)) retryable.add(failure);
        throw failure;
      } finally {
        clearTimeout(timer);
        if (!(succeeded && keepLinked)) stopFollowing();
      }
    };
    return withRetries(attempt, {
      schedule: {
        maxRetries: this.#options.maxRetries ?? transportDefaults.maxRetries,
        initialRetryDelayMs:
          this.#options.initialRetryDelayMs ?? transportDefaults.initialRetryDelayMs,
        maxRetryDelayMs: this.#options.maxRetryDelayMs ?? transportDefaults.maxRetryDelayMs,
      },
      shouldRetry: (error) => typeof error === "object" && error !== null && retryable.has(error),
      onRetry: (error, retryNumber, delayMs) => {
        this.#logger.warn(
          {
            model: this.#target.url,
            attempt: retryNumber,
            retryInMs: delayMs,
            error: error instanceof Error ? error.message : String(error),
          },
          "model call failed, retrying",
        );
      },
      signal: options.signal,
      abortedError: () => this.#failure(undefined, options.signal, undefined),
    });
  }

  #failure(error: unknown, signal: AbortSignal | undefined, timedOutAfterMs: number | undefined) {
    return toSwitchyardError(error, {
      provider: this.#provider,
      target: this.#target,
      aborted: signal?.aborted === true,
      timedOutAfterMs,
    });
  }

  #callOptions(request: ModelRequest): SpecCallOptions {
    const callOptions = toSpecCallOptions(
      request,
      { provider: this.#languageModel.provider, modelId: this.#languageModel.modelId },
      this.#options.providerOptions,
    );
    if (this.#options.headers) callOptions.headers = { ...this.#options.headers };
    return callOptions;
  }

  #assembler(): AnswerAssembler {
    return new AnswerAssembler({
      modelId: this.#languageModel.modelId,
      createId: () => `chatcmpl-${randomUUID()}`,
    });
  }
}

/**
 * Aborts `controller` when `signal` fires; returns what stops following it.
 * Through {@link onAbort}, so a run's signal shared by many calls carries
 * one listener of ours.
 */
function follow(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => {};
  }
  return onAbort(signal, () => controller.abort(signal.reason));
}
