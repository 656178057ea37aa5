import { createApiError } from "../../errors/api-error.js";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { SwitchyardError } from "../../errors/switchyard-error.js";
import { HttpClient } from "../../internal/http/http-client.js";
import {
  findTransportOptionProblems,
  pickTransportOptions,
} from "../../internal/http/transport-options.js";
import { parseServiceUrl } from "../../internal/http/url-policy.js";
import { componentLogger, type Logger } from "../../internal/logger.js";
import { attachSecrets, SecretRegistry, secretsOf } from "../../internal/redact.js";
import { applyChatDefaults, type ChatDefaults, toWireBody } from "./chat-request-body.js";
import type { ChatCallOptions, ChatCompletion, ChatRequest, ChatStream } from "./chat-types.js";
import { createChatStream } from "./create-chat-stream.js";
import { parseChatCompletion } from "./parse-chat-completion.js";
import { providerNameOf } from "./provider-name.js";
import { readProviderError } from "./read-provider-error.js";
import type { ReasonerClientOptions } from "./reasoner-client-options.js";
import { streamChatCompletion } from "./stream-chat-completion.js";
import { type ExtraBodyMode, validateChatRequest } from "./validate-chat-request.js";
import { checkCompression, checkProviderRouting } from "./validate-extra-body.js";
import { checkNonEmptyString, describeValue, isPlainObject } from "./validation-checks.js";

export type { ReasonerClientOptions } from "./reasoner-client-options.js";

/**
 * Client of the reasoning service (docs/contract.md §1): chat completions, whole or
 * streamed, with tools. Implements the agent's `Model` interface. Every
 * request is checked before it is sent; a completion has no side effect, so
 * requests retry like reads.
 *
 * @example
 * ```ts
 * const model = new ReasonerClient({ url: process.env.REASONER_URL!, apiKey: process.env.REASONER_API_KEY! });
 * const stream = model.stream({ messages: [{ role: "user", content: "Hello" }] });
 * for await (const event of stream) if (event.type === "text-delta") process.stdout.write(event.delta);
 * const completion = await stream.finalCompletion();
 * ```
 */
export class ReasonerClient {
  /** The address requests are POSTed to. */
  readonly url: string;
  /** Same as {@link ReasonerClient.url}, named like the other clients' option. */
  readonly baseUrl: string;
  /** The model used when a request names none, if any. */
  readonly model: string | undefined;
  /**
   * Who serves the requests, as tracing names it (`gen_ai.provider.name`):
   * the well-known provider of the address's host (`api.openai.com` is
   * `openai`, `openrouter.ai` is `openrouter`, ...), else the first provider
   * of the `provider` routing, else undefined.
   */
  readonly providerName: string | undefined;
  readonly extraBodyMode: ExtraBodyMode;
  readonly #http: HttpClient;
  readonly #logger: Logger;
  readonly #defaults: ChatDefaults;
  readonly #streamIdleTimeoutMs: number;

  constructor(options: ReasonerClientOptions) {
    const problems = findOptionProblems(options);
    if (problems.length > 0) throw new ConfigurationError(problems);
    this.#logger = componentLogger(
      options.logger,
      "reasoner-client",
      attachSecrets(this, new SecretRegistry().add(options.apiKey)),
    );
    this.#http = new HttpClient({
      secrets: secretsOf(this),
      baseUrl: options.url,
      baseUrlLabel: "url",
      token: options.apiKey,
      ...pickTransportOptions(options),
      logger: this.#logger,
    });
    this.url = this.#http.baseUrl.href;
    this.baseUrl = this.url;
    this.model = options.model;
    this.providerName = providerNameOf(this.#http.baseUrl, options.provider);
    this.extraBodyMode = options.extraBodyMode ?? "extra_body";
    this.#defaults = {
      model: options.model,
      provider: options.provider,
      compression: options.compression,
    };
    this.#streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 60_000;
  }

  /**
   * Sends a request and returns the whole answer, a `chat.completion`.
   * Rejects with a ConfigurationError (nothing sent) for a bad request, an
   * ApiError for a non-2xx answer or a 200 answer carrying an `error`, and a
   * SwitchyardError for an answer that is not a completion.
   */
  async complete(request: ChatRequest, options?: ChatCallOptions): Promise<ChatCompletion> {
    const body = this.#prepare(request, false);
    const sent = await this.#http.send({
      method: "POST",
      path: "",
      body,
      idempotent: true,
      signal: options?.signal,
      timeoutMs: options?.timeoutMs,
    });
    let text: string;
    try {
      text = await sent.response.text();
    } catch (error) {
      throw sent.bodyError(error);
    } finally {
      sent.done();
    }
    const url = this.#http.redactUrl(sent.url);
    const snippet = () => this.#http.redact(text.length > 200 ? `${text.slice(0, 200)}...` : text);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new SwitchyardError(
        `POST ${url} answered ${sent.response.status} with a body that is not JSON: ${snippet()}`,
        { cause: error },
      );
    }
    if (readProviderError(value)) {
      throw createApiError({
        status: sent.response.status,
        method: "POST",
        url,
        headers: sent.response.headers,
        body: this.#http.redactValue(value),
        bodyText: this.#http.redact(text),
      });
    }
    return parseChatCompletion(value, { method: "POST", url, snippet });
  }

  /**
   * Sends a streamed request. The request is checked now (a ConfigurationError
   * is thrown at once) and sent when the stream is first read: iterate its
   * events, or await `finalCompletion()` for the same `chat.completion`
   * `complete()` returns. A failure before the first event sends the request
   * again; after it, errors (StreamError, TimeoutError for a silent stream,
   * AbortedError) surface from the loop and from `finalCompletion()`.
   */
  stream(request: ChatRequest, options?: ChatCallOptions): ChatStream {
    const body = this.#prepare(request, true);
    return createChatStream((settle) =>
      streamChatCompletion(
        {
          http: this.#http,
          body,
          options,
          streamIdleTimeoutMs: this.#streamIdleTimeoutMs,
          logger: this.#logger,
        },
        settle,
      ),
    );
  }

  #prepare(request: ChatRequest, stream: boolean): Record<string, unknown> {
    const merged = applyChatDefaults(request, this.#defaults);
    validateChatRequest(merged, { extraBodyMode: this.extraBodyMode });
    if (this.#logger.isLevelEnabled("debug")) {
      this.#logger.debug(
        {
          model: merged.model ?? "(service default)",
          stream,
          messages: merged.messages.length,
          tools: merged.tools?.length ?? 0,
          provider: merged.extra_body?.provider?.order,
        },
        "chat request",
      );
    }
    return toWireBody(merged, this.extraBodyMode, stream);
  }
}

function findOptionProblems(options: ReasonerClientOptions): string[] {
  if (!isPlainObject(options)) {
    return ["ReasonerClient options must be an object with url and apiKey"];
  }
  const problems: string[] = [];
  try {
    parseServiceUrl(options.url, "url");
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    problems.push(...error.problems);
  }
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    problems.push("apiKey is required: pass the reasoning service's API key as a non-empty string");
  }
  checkNonEmptyString(problems, "model", options.model);
  checkProviderRouting(problems, "provider", options.provider);
  checkCompression(problems, "compression", options.compression);
  const mode = options.extraBodyMode;
  if (mode !== undefined && mode !== "extra_body" && mode !== "merge") {
    problems.push(`extraBodyMode ${describeValue(mode)} is not "extra_body" or "merge"`);
  }
  checkInteger(problems, "streamIdleTimeoutMs", options.streamIdleTimeoutMs, 1);
  problems.push(...findTransportOptionProblems(options));
  return problems;
}

function checkInteger(problems: string[], label: string, value: unknown, minimum: number): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < minimum) {
    problems.push(`${label} ${describeValue(value)} must be an integer of at least ${minimum}`);
  }
}
