import {
  APICallError,
  type LanguageModelV2,
  type LanguageModelV2StreamPart,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
  LoadAPIKeyError,
} from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV3, MockLanguageModelV4 } from "ai/test";
import {
  AbortedError,
  Agent,
  ConfigurationError,
  ConnectionError,
  RateLimitError,
  TimeoutError,
} from "switchyard-agents";
import { aiSdkModel } from "switchyard-agents/ai-sdk";
import type { ModelRequest, ModelStreamEvent } from "switchyard-agents/model";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { StreamError } from "../../src/clients/reasoner/stream-error.js";
import { BadRequestError } from "../../src/errors/api-error.js";
import { captureLogger } from "../helpers/capture-logger.js";

function usage(input: number, output: number, reasoning?: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output - (reasoning ?? 0), reasoning },
  };
}

function generated(
  content: LanguageModelV3GenerateResult["content"],
  unified: LanguageModelV3GenerateResult["finishReason"]["unified"] = "stop",
): LanguageModelV3GenerateResult {
  return { content, finishReason: { unified, raw: undefined }, usage: usage(10, 5), warnings: [] };
}

function streamed(parts: LanguageModelV3StreamPart[]) {
  return { stream: convertArrayToReadableStream(parts) };
}

const finish = (
  unified: LanguageModelV3GenerateResult["finishReason"]["unified"] = "stop",
  tokens: LanguageModelV3Usage = usage(10, 5),
): LanguageModelV3StreamPart => ({
  type: "finish",
  finishReason: { unified, raw: undefined },
  usage: tokens,
});

const hello: ModelRequest = { messages: [{ role: "user", content: "Say hello." }] };

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function apiCallError(statusCode: number, body: unknown, headers: Record<string, string> = {}) {
  return new APICallError({
    message: `status ${statusCode}`,
    url: "https://api.example.test/v1/chat/completions",
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: JSON.stringify(body),
  });
}

describe("aiSdkModel: the request", () => {
  it("sends the conversation, tools, tool choice, settings and response format in the specification's form", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: generated([{ type: "text", text: "ok" }]),
    });
    const adapter = aiSdkModel(model, {
      providerOptions: { mock: { effort: "low" } },
      headers: { "x-team": "ops" },
    });

    await adapter.complete({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Tidy the callbacks." },
        {
          role: "assistant",
          content: null,
          reasoning: "List them first.",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "list", arguments: '{"limit":5}' },
            },
            { id: "call_2", type: "function", function: { name: "count", arguments: "" } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '[{"id":"cb_1"}]' },
        { role: "tool", tool_call_id: "call_2", content: "1" },
        { role: "assistant", content: "One callback." },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "list",
            description: "Lists callbacks",
            parameters: { type: "object", properties: { limit: { type: "integer" } } },
          },
        },
      ],
      tool_choice: { type: "function", function: { name: "list" } },
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 300,
      stop: "END",
      presence_penalty: 0.1,
      frequency_penalty: 0.3,
      response_format: {
        type: "json_schema",
        json_schema: { name: "report", description: "The report", schema: { type: "object" } },
      },
    });

    const [call] = model.doGenerateCalls;
    expect(call?.prompt).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Tidy the callbacks." }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "List them first." },
          { type: "tool-call", toolCallId: "call_1", toolName: "list", input: { limit: 5 } },
          { type: "tool-call", toolCallId: "call_2", toolName: "count", input: {} },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "list",
            output: { type: "text", value: '[{"id":"cb_1"}]' },
          },
          {
            type: "tool-result",
            toolCallId: "call_2",
            toolName: "count",
            output: { type: "text", value: "1" },
          },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "One callback." }] },
    ]);
    expect(call).toMatchObject({
      tools: [
        {
          type: "function",
          name: "list",
          description: "Lists callbacks",
          inputSchema: { type: "object", properties: { limit: { type: "integer" } } },
        },
      ],
      toolChoice: { type: "tool", toolName: "list" },
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 300,
      stopSequences: ["END"],
      presencePenalty: 0.1,
      frequencyPenalty: 0.3,
      responseFormat: {
        type: "json",
        name: "report",
        description: "The report",
        schema: { type: "object" },
      },
      providerOptions: { mock: { effort: "low" } },
      headers: { "x-team": "ops" },
    });
  });

  it("maps tool_choice none and auto, and json_object", async () => {
    const model = new MockLanguageModelV3({ doGenerate: generated([]) });
    const adapter = aiSdkModel(model);
    await adapter.complete({
      ...hello,
      tool_choice: "none",
      response_format: { type: "json_object" },
    });
    await adapter.complete({ ...hello, tool_choice: "auto", response_format: { type: "text" } });
    expect(model.doGenerateCalls.map((call) => [call.toolChoice, call.responseFormat])).toEqual([
      [{ type: "none" }, { type: "json" }],
      [{ type: "auto" }, { type: "text" }],
    ]);
  });

  it("refuses a request naming another model, sending nothing", async () => {
    const model = new MockLanguageModelV3({ modelId: "small", doGenerate: generated([]) });
    await expect(aiSdkModel(model).complete({ ...hello, model: "large" })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(aiSdkModel(model).complete({ ...hello, model: "small" })).resolves.toBeDefined();
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it("says what is wrong with what it is given", () => {
    expect(() => aiSdkModel("openai/gpt-5" as never)).toThrow(
      /needs an AI SDK language model object.*; got "openai\/gpt-5"$/,
    );
    expect(() =>
      aiSdkModel({ ...new MockLanguageModelV3(), specificationVersion: "v1" } as never),
    ).toThrow(/specification v2, v3 or v4; this one is "v1"/);
    expect(() =>
      aiSdkModel(new MockLanguageModelV3(), { maxRetries: -1, fetch: fetch } as never),
    ).toThrow(ConfigurationError);
    try {
      aiSdkModel(new MockLanguageModelV3(), { maxRetries: -1, fetch: fetch } as never);
    } catch (error) {
      expect((error as ConfigurationError).problems).toEqual([
        expect.stringMatching(/^fetch is not an option of aiSdkModel/),
        "maxRetries -1 must be an integer of at least 0",
      ]);
    }
  });
});

describe("aiSdkModel: a whole answer", () => {
  it("gives text, reasoning, tool calls and usage as a chat completion", async () => {
    const model = new MockLanguageModelV3({
      modelId: "mock-large",
      doGenerate: {
        ...generated(
          [
            { type: "reasoning", text: "The user wants " },
            { type: "reasoning", text: "a list." },
            { type: "text", text: "Listing." },
            { type: "tool-call", toolCallId: "call_9", toolName: "list", input: '{"limit":5}' },
            {
              type: "tool-call",
              toolCallId: "ws_1",
              toolName: "web_search",
              input: "{}",
              providerExecuted: true,
            },
          ],
          "tool-calls",
        ),
        usage: {
          inputTokens: { total: 120, noCache: 20, cacheRead: 100, cacheWrite: undefined },
          outputTokens: { total: 40, text: 10, reasoning: 30 },
        },
        response: {
          id: "resp_1",
          modelId: "mock-large-2026",
          timestamp: new Date(1_700_000_000_000),
        },
      },
    });

    const answer = await aiSdkModel(model).complete(hello);

    expect(answer).toEqual({
      id: "resp_1",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "mock-large-2026",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Listing.",
            reasoning: "The user wants a list.",
            tool_calls: [
              {
                id: "call_9",
                type: "function",
                function: { name: "list", arguments: '{"limit":5}' },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: {
        prompt_tokens: 120,
        completion_tokens: 40,
        total_tokens: 160,
        completion_tokens_details: { reasoning_tokens: 30 },
        prompt_tokens_details: { cached_tokens: 100 },
      },
    });
  });

  it.each([
    ["stop", "stop"],
    ["length", "length"],
    ["tool-calls", "tool_calls"],
    ["content-filter", "content_filter"],
    ["error", "error"],
    ["other", "other"],
  ] as const)("maps the finish reason %s to %s, whole and streamed", async (unified, expected) => {
    const model = new MockLanguageModelV3({
      doGenerate: generated([{ type: "text", text: "x" }], unified),
      doStream: streamed([{ type: "text-delta", id: "t", delta: "x" }, finish(unified)]),
    });
    const adapter = aiSdkModel(model);
    expect((await adapter.complete(hello)).choices[0]?.finish_reason).toBe(expected);
    const stream = adapter.stream(hello);
    const events = await collect(stream);
    expect(events.at(-1)).toMatchObject({ type: "finish", finishReason: expected });
    expect((await stream.finalCompletion()).choices[0]?.finish_reason).toBe(expected);
  });

  it("reads a v4 model's interrupted finish, and a v2 model's flat usage and string finish reason", async () => {
    const v4 = new MockLanguageModelV4({
      doGenerate: {
        content: [{ type: "text", text: "Half" }],
        finishReason: { unified: "interrupted", raw: undefined },
        usage: usage(3, 2),
        warnings: [],
      },
    });
    expect((await aiSdkModel(v4).complete(hello)).choices[0]?.finish_reason).toBe("interrupted");

    const v2: LanguageModelV2 = {
      specificationVersion: "v2",
      provider: "legacy",
      modelId: "legacy-1",
      supportedUrls: {},
      doGenerate: async () => ({
        content: [{ type: "text", text: "Hi" }],
        finishReason: "length",
        usage: { inputTokens: 7, outputTokens: 3, totalTokens: 11, reasoningTokens: 1 },
        warnings: [],
      }),
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV2StreamPart>([
          { type: "text-delta", id: "t", delta: "Hi" },
          {
            type: "finish",
            finishReason: "content-filter",
            usage: { inputTokens: 7, outputTokens: 1, totalTokens: 8 },
          },
        ]),
      }),
    };
    const streamed = await aiSdkModel(v2).stream(hello).finalCompletion();
    expect(streamed.choices[0]).toMatchObject({
      message: { content: "Hi" },
      finish_reason: "content_filter",
    });
    expect(streamed.usage).toEqual({ prompt_tokens: 7, completion_tokens: 1, total_tokens: 8 });
    const answer = await aiSdkModel(v2).complete(hello);
    expect(answer.choices[0]).toMatchObject({
      message: { content: "Hi" },
      finish_reason: "length",
    });
    expect(answer.usage).toEqual({
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 11,
      completion_tokens_details: { reasoning_tokens: 1 },
    });
  });
});

describe("aiSdkModel: a streamed answer", () => {
  it("streams reasoning, text and tool calls split in parts, and assembles the same answer", async () => {
    const model = new MockLanguageModelV3({
      doStream: streamed([
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", id: "resp_7", modelId: "mock-7" },
        { type: "reasoning-start", id: "r" },
        { type: "reasoning-delta", id: "r", delta: "Two " },
        { type: "reasoning-delta", id: "r", delta: "calls." },
        { type: "reasoning-end", id: "r" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "On " },
        { type: "text-delta", id: "t", delta: "it." },
        { type: "text-end", id: "t" },
        { type: "tool-input-start", id: "call_a", toolName: "list" },
        { type: "tool-input-delta", id: "call_a", delta: '{"lim' },
        { type: "tool-input-delta", id: "call_a", delta: 'it":5}' },
        { type: "tool-input-end", id: "call_a" },
        { type: "tool-call", toolCallId: "call_a", toolName: "list", input: '{"limit":5}' },
        { type: "tool-call", toolCallId: "call_b", toolName: "count", input: '{"host":"x"}' },
        finish("tool-calls", usage(50, 20, 8)),
      ]),
    });
    const stream = aiSdkModel(model).stream(hello);

    const events = await collect(stream);

    expect(events).toEqual([
      { type: "reasoning-delta", choiceIndex: 0, delta: "Two " },
      { type: "reasoning-delta", choiceIndex: 0, delta: "calls." },
      { type: "text-delta", choiceIndex: 0, delta: "On " },
      { type: "text-delta", choiceIndex: 0, delta: "it." },
      ...[
        ["call_a", "list", 0, ""],
        ["call_a", "list", 0, '{"lim'],
        ["call_a", "list", 0, 'it":5}'],
        ["call_b", "count", 1, '{"host":"x"}'],
      ].map(([id, name, toolCallIndex, argumentsDelta]) => ({
        type: "tool-call-delta",
        choiceIndex: 0,
        toolCallIndex,
        id,
        name,
        argumentsDelta,
      })),
      {
        type: "finish",
        choiceIndex: 0,
        finishReason: "tool_calls",
        usage: {
          prompt_tokens: 50,
          completion_tokens: 20,
          total_tokens: 70,
          completion_tokens_details: { reasoning_tokens: 8 },
        },
      },
    ]);
    const completion = await stream.finalCompletion();
    expect(completion).toMatchObject({
      id: "resp_7",
      model: "mock-7",
      choices: [
        {
          message: {
            role: "assistant",
            content: "On it.",
            reasoning: "Two calls.",
            tool_calls: [
              { id: "call_a", function: { name: "list", arguments: '{"limit":5}' } },
              { id: "call_b", function: { name: "count", arguments: '{"host":"x"}' } },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { total_tokens: 70 },
    });
  });

  it("ends with a StreamError at an error part mid-stream, after the events before it", async () => {
    const model = new MockLanguageModelV3({
      doStream: streamed([
        { type: "text-delta", id: "t", delta: "Partial" },
        {
          type: "error",
          error: { message: "The model is overloaded", code: "overloaded", type: "server_error" },
        },
        { type: "text-delta", id: "t", delta: " never read" },
        finish(),
      ]),
    });
    const stream = aiSdkModel(model).stream(hello);
    const seen: ModelStreamEvent[] = [];

    const reading = (async () => {
      for await (const event of stream) seen.push(event);
    })();

    await expect(reading).rejects.toBeInstanceOf(StreamError);
    await expect(reading).rejects.toMatchObject({
      kind: "provider_error",
      detail: "The model is overloaded",
      code: "overloaded",
      type: "server_error",
    });
    expect(seen).toEqual([{ type: "text-delta", choiceIndex: 0, delta: "Partial" }]);
    await expect(stream.finalCompletion()).rejects.toBeInstanceOf(StreamError);
  });

  it("fails with an incomplete StreamError when the stream ends without a finish part", async () => {
    const model = new MockLanguageModelV3({
      doStream: streamed([{ type: "text-delta", id: "t", delta: "Cut" }]),
    });
    await expect(aiSdkModel(model).stream(hello).finalCompletion()).rejects.toMatchObject({
      name: "StreamError",
      kind: "incomplete",
    });
  });
});

describe("aiSdkModel: failures", () => {
  it("sends a retryable 429 again and answers; a 429 that stays is a RateLimitError with the answer", async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        if (calls === 1)
          throw apiCallError(429, { error: { message: "slow down" } }, { "retry-after-ms": "1" });
        return generated([{ type: "text", text: "Hello" }]);
      },
    });
    const { logger, text } = captureLogger();
    const answer = await aiSdkModel(model, { initialRetryDelayMs: 1, logger }).complete(hello);
    expect(answer.choices[0]?.message.content).toBe("Hello");
    expect(calls).toBe(2);
    const [line] = text()
      .trim()
      .split("\n")
      .map((record) => JSON.parse(record));
    expect(line).toMatchObject({
      level: 40,
      component: "ai-sdk-model",
      model: "mock-provider/mock-model-id",
      attempt: 1,
      error: expect.stringContaining("answered 429: slow down"),
      msg: "model call failed, retrying",
    });

    const busy = new MockLanguageModelV3({
      doGenerate: async () => {
        throw apiCallError(429, { error: { message: "slow down" } }, { "x-request-id": "req_42" });
      },
    });
    const failure = aiSdkModel(busy, { maxRetries: 2, initialRetryDelayMs: 1 }).complete(hello);
    await expect(failure).rejects.toBeInstanceOf(RateLimitError);
    await expect(failure).rejects.toMatchObject({
      status: 429,
      url: "https://api.example.test/v1/chat/completions",
      body: { error: { message: "slow down" } },
      requestId: "req_42",
      message: expect.stringContaining("answered 429: slow down"),
    });
    expect(busy.doGenerateCalls).toHaveLength(3);
  });

  it("does not send a 400 again: a BadRequestError, the provider's error as its cause", async () => {
    const original = apiCallError(400, { error: { message: "temperature too high" } });
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw original;
      },
    });
    const failure = aiSdkModel(model, { initialRetryDelayMs: 1 }).complete(hello);
    await expect(failure).rejects.toBeInstanceOf(BadRequestError);
    await expect(failure).rejects.toMatchObject({ status: 400, cause: original });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it("keeps a key the provider echoes out of the error's message and body", async () => {
    const key = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw apiCallError(401, { error: { message: `Incorrect API key provided: ${key}` } });
      },
    });
    const failure = (await aiSdkModel(model)
      .complete(hello)
      .catch((error: unknown) => error)) as { message: string; body: unknown; bodyText: string };
    expect(failure.message).toContain("answered 401: Incorrect API key provided: [redacted]");
    const cause = (failure as { cause?: unknown }).cause as APICallError;
    expect(
      JSON.stringify([
        failure.message,
        failure.body,
        failure.bodyText,
        cause.message,
        cause.responseBody,
      ]),
    ).not.toContain(key);
    expect(APICallError.isInstance(cause)).toBe(true);
  });

  it("sends a stream's request again when it fails before the stream starts", async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        calls++;
        if (calls === 1) throw apiCallError(503, { error: { message: "down" } });
        return streamed([{ type: "text-delta", id: "t", delta: "Up" }, finish()]);
      },
    });
    const completion = await aiSdkModel(model, { initialRetryDelayMs: 1 })
      .stream(hello)
      .finalCompletion();
    expect(completion.choices[0]?.message.content).toBe("Up");
    expect(calls).toBe(2);
  });

  it("keeps a key in the provider's URL and its answer's cookies and key headers out of the error", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({
          message: "status 400",
          url: "https://models.example.test/v1/generate?key=AIzaSyA1234567890abcdefghijklmn&alt=sse",
          requestBodyValues: {},
          statusCode: 400,
          responseHeaders: {
            "set-cookie": "session=abc123secretvalue",
            "x-api-key": "provider-key-0987654321",
            "x-request-id": "req_1",
          },
          responseBody: JSON.stringify({ error: { message: "bad" } }),
        });
      },
    });
    const failure = (await aiSdkModel(model)
      .complete(hello)
      .catch((error: unknown) => error)) as BadRequestError;
    expect(failure).toBeInstanceOf(BadRequestError);
    expect(failure.url).toBe("https://models.example.test/v1/generate?key=%5Bredacted%5D&alt=sse");
    expect(failure.headers.get("set-cookie")).toBe("[redacted]");
    expect(failure.headers.get("x-api-key")).toBe("[redacted]");
    expect(failure.headers.get("x-request-id")).toBe("req_1");
    expect(`${failure.message} ${failure.url}`).not.toContain("AIzaSyA1234567890abcdefghijklmn");
  });

  it("makes no answer a ConnectionError and a missing key a ConfigurationError", async () => {
    const unreachable = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({
          message: "Cannot connect to API: connect ECONNREFUSED",
          url: "http://127.0.0.1:9/v1/chat/completions",
          requestBodyValues: {},
          isRetryable: false,
        });
      },
    });
    await expect(aiSdkModel(unreachable).complete(hello)).rejects.toBeInstanceOf(ConnectionError);
    const keyless = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new LoadAPIKeyError({
          message: "Anthropic API key is missing. Set ANTHROPIC_API_KEY.",
        });
      },
    });
    await expect(aiSdkModel(keyless).complete(hello)).rejects.toThrow(
      new ConfigurationError("Anthropic API key is missing. Set ANTHROPIC_API_KEY."),
    );
  });

  it("times out a call that does not answer, and sends it again", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_, reject) => {
          abortSignal?.addEventListener("abort", () =>
            reject(new DOMException("aborted", "AbortError")),
          );
        }),
    });
    const failure = aiSdkModel(model, {
      timeoutMs: 5,
      maxRetries: 1,
      initialRetryDelayMs: 1,
    }).complete(hello);
    await expect(failure).rejects.toBeInstanceOf(TimeoutError);
    await expect(failure).rejects.toMatchObject({
      timeoutMs: 5,
      message:
        "The model mock-provider/mock-model-id did not answer within 5 ms; raise the timeoutMs option if it is slow",
    });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(model.doGenerateCalls.every((call) => call.abortSignal?.aborted)).toBe(true);
  });
});

describe("aiSdkModel: abort", () => {
  it("aborts the provider's call when the caller's signal fires, with an AbortedError", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_, reject) => {
          abortSignal?.addEventListener("abort", () =>
            reject(new DOMException("aborted", "AbortError")),
          );
        }),
    });
    const controller = new AbortController();
    const failure = aiSdkModel(model).complete(hello, { signal: controller.signal });
    await expect.poll(() => model.doGenerateCalls.length).toBe(1);
    controller.abort();
    await expect(failure).rejects.toBeInstanceOf(AbortedError);
    expect(model.doGenerateCalls[0]?.abortSignal?.aborted).toBe(true);
  });

  it("aborts a stream mid-way, and cancels the provider's stream when the reader stops early", async () => {
    let cancelled = 0;
    const model = new MockLanguageModelV3({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: "text-delta", id: "t", delta: "Hel" });
            abortSignal?.addEventListener("abort", () =>
              controller.error(new DOMException("aborted", "AbortError")),
            );
          },
          cancel() {
            cancelled++;
          },
        }),
      }),
    });
    const controller = new AbortController();
    const stream = aiSdkModel(model).stream(hello, { signal: controller.signal });
    const seen: ModelStreamEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        seen.push(event);
        controller.abort();
      }
    })();
    await expect(reading).rejects.toBeInstanceOf(AbortedError);
    expect(seen).toEqual([{ type: "text-delta", choiceIndex: 0, delta: "Hel" }]);
    expect(model.doStreamCalls[0]?.abortSignal?.aborted).toBe(true);

    const early = aiSdkModel(model).stream(hello);
    for await (const _event of early) break;
    expect(model.doStreamCalls[1]?.abortSignal?.aborted).toBe(true);
    expect(cancelled).toBe(1);
    await expect(early.finalCompletion()).rejects.toBeInstanceOf(AbortedError);
  });
});

describe("aiSdkModel in an agent", () => {
  it("asks for structured output as a JSON response format and returns the parsed value", async () => {
    const model = new MockLanguageModelV3({
      doStream: streamed([
        { type: "text-delta", id: "t", delta: '{"total": 7, ' },
        { type: "text-delta", id: "t", delta: '"open": 2}' },
        finish(),
      ]),
    });
    const agent = new Agent({
      model: aiSdkModel(model),
      output: z.object({ total: z.number().int(), open: z.number().int() }),
    });
    const stream = agent.stream("Count the orders.");
    for await (const _event of stream) {
      // read to the end
    }
    const result = await stream.result;

    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ total: 7, open: 2 });
    expect(model.doStreamCalls[0]?.responseFormat).toMatchObject({
      type: "json",
      name: "output",
      schema: { type: "object", required: ["total", "open"] },
    });
  });
});
