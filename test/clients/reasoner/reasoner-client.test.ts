import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ReasonerClient } from "../../../src/clients/reasoner/reasoner-client.js";
import {
  ApiError,
  ConfigurationError,
  ConnectionError,
  SwitchyardError,
} from "../../../src/errors/index.js";
import {
  apiKey,
  fakeFetch,
  makeClient,
  reasonerUrl,
  rejection,
  simpleRequest,
  sseResponse,
} from "./reasoner-test-kit.js";

const completion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1760000000,
  model: "vendorA/v3",
  system_fingerprint: "fp_1",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Trois commandes sont ouvertes." },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 10, completion_tokens: 6, total_tokens: 16 },
};

const json = (value: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(value), {
    status: 200,
    headers: { "content-type": "application/json" },
    ...init,
  });

describe("new ReasonerClient", () => {
  it("reports every bad option at once and never echoes the key", () => {
    let error: unknown;
    try {
      new ReasonerClient({
        url: "http://reasoner.example.com/v1",
        apiKey: "",
        model: "",
        extraBodyMode: "top" as never,
        provider: { order: "vendorA" as never },
        compression: { mmr_lambda_text: 2 },
        streamIdleTimeoutMs: 0,
        maxRetries: -1,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual([
      "url http://reasoner.example.com uses plain http: only https is allowed, except for loopback hosts (127.0.0.1, localhost, [::1])",
      "apiKey is required: pass the reasoning service's API key as a non-empty string",
      'model "" is not a non-empty string',
      'provider.order "vendorA" is not an array of strings',
      "compression.mmr_lambda_text 2 is outside 0..1",
      'extraBodyMode "top" is not "extra_body" or "merge"',
      "streamIdleTimeoutMs 0 must be an integer of at least 1",
      "maxRetries -1 must be an integer of at least 0",
    ]);
  });

  it("accepts loopback http and exposes the address", () => {
    const client = new ReasonerClient({ url: "http://127.0.0.1:8080/v1/chat", apiKey });
    expect(client.url).toBe("http://127.0.0.1:8080/v1/chat");
    expect(client.baseUrl).toBe(client.url);
    expect(client.extraBodyMode).toBe("extra_body");
  });
});

describe("what is sent", () => {
  it("POSTs to the url exactly, with the bearer key and the request as JSON", async () => {
    const { fetch, calls } = fakeFetch(() => json(completion));
    await makeClient(fetch).complete({ ...simpleRequest, temperature: 0.2, max_tokens: 300 });
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call?.url).toBe(reasonerUrl);
    expect(call?.method).toBe("POST");
    expect(call?.headers.get("authorization")).toBe(`Bearer ${apiKey}`);
    expect(call?.headers.get("content-type")).toBe("application/json");
    expect(call?.body).toEqual({ ...simpleRequest, temperature: 0.2, max_tokens: 300 });
  });

  it("keeps a query string of the url", async () => {
    const { fetch, calls } = fakeFetch(() => json(completion));
    await makeClient(fetch, { url: `${reasonerUrl}?api-version=2024-10` }).complete(simpleRequest);
    expect(calls[0]?.url).toBe(`${reasonerUrl}?api-version=2024-10`);
  });

  it("merges the model, provider and compression defaults under the request's own values", async () => {
    const { fetch, calls } = fakeFetch(() => json(completion));
    const client = makeClient(fetch, {
      model: "vendorA/r1",
      provider: { order: ["vendorA", "vendorB"], allow_fallbacks: false },
      compression: { token_limit: 8000, embedding_provider: "vendorC" },
    });
    await client.complete(simpleRequest);
    await client.complete({
      ...simpleRequest,
      model: "oss-120b",
      extra_body: {
        provider: { allow_fallbacks: true },
        compression: { token_limit: 2000 },
        transforms: ["middle-out"],
      },
    });
    expect(calls[0]?.body).toEqual({
      ...simpleRequest,
      model: "vendorA/r1",
      extra_body: {
        provider: { order: ["vendorA", "vendorB"], allow_fallbacks: false },
        compression: { token_limit: 8000, embedding_provider: "vendorC" },
      },
    });
    expect(calls[1]?.body).toEqual({
      ...simpleRequest,
      model: "oss-120b",
      extra_body: {
        provider: { order: ["vendorA", "vendorB"], allow_fallbacks: true },
        compression: { token_limit: 2000, embedding_provider: "vendorC" },
        transforms: ["middle-out"],
      },
    });
  });

  it("in merge mode lifts the extra_body keys to the top level", async () => {
    const { fetch, calls } = fakeFetch(() => json(completion));
    const client = makeClient(fetch, {
      extraBodyMode: "merge",
      provider: { order: ["vendorB"] },
    });
    await client.complete({
      ...simpleRequest,
      extra_body: { compression: { mmr_lambda_text: 0.5 }, transforms: [] },
    });
    expect(calls[0]?.body).toEqual({
      ...simpleRequest,
      provider: { order: ["vendorB"] },
      compression: { mmr_lambda_text: 0.5 },
      transforms: [],
    });
    expect(calls[0]?.body).not.toHaveProperty("extra_body");
  });

  it("sends no extra_body when there is nothing in it", async () => {
    const { fetch, calls } = fakeFetch(() => json(completion));
    await makeClient(fetch).complete({ ...simpleRequest, extra_body: {} });
    expect(calls[0]?.body).toEqual(simpleRequest);
  });

  it("a stream asks for SSE with usage", async () => {
    const { fetch, calls } = fakeFetch(() =>
      sseResponse(
        'data: {"id":"c","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      ),
    );
    await makeClient(fetch, { model: "vendorB/235b" }).stream(simpleRequest).finalCompletion();
    expect(calls[0]?.headers.get("accept")).toBe("text/event-stream");
    expect(calls[0]?.body).toEqual({
      ...simpleRequest,
      model: "vendorB/235b",
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("does not change the caller's request object", async () => {
    const { fetch } = fakeFetch(() => json(completion));
    const request = { ...simpleRequest, extra_body: { provider: { require: ["tools"] } } };
    const before = structuredClone(request);
    await makeClient(fetch, { model: "m", provider: { order: ["a"] } }).complete(request);
    expect(request).toEqual(before);
  });
});

describe("complete()", () => {
  it("returns the chat.completion, unknown fields kept", async () => {
    const { fetch } = fakeFetch(() => json(completion));
    await expect(makeClient(fetch).complete(simpleRequest)).resolves.toEqual(completion);
  });

  it("normalizes what providers vary in: reasoning_content, missing content, missing tool call ids", async () => {
    const { fetch } = fakeFetch(() =>
      json({
        id: "x",
        object: "chat.completion",
        created: 1,
        model: "vendorA/r1",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              reasoning_content: "Je réfléchis.",
              tool_calls: [
                { id: "", type: "function", function: { name: "list_orders", arguments: "{}" } },
                { id: "call_2", function: { name: "get_sku", arguments: { sku: "A" } } },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
      }),
    );
    const answer = await makeClient(fetch).complete(simpleRequest);
    const message = answer.choices[0]?.message;
    expect(message?.content).toBeNull();
    expect(message?.reasoning).toBe("Je réfléchis.");
    expect(message?.tool_calls?.[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(message?.tool_calls?.[1]).toEqual({
      id: "call_2",
      type: "function",
      function: { name: "get_sku", arguments: '{"sku":"A"}' },
    });
    expect(answer).not.toHaveProperty("usage");
  });

  it("turns a 200 answer carrying an error object into an ApiError with the provider's message", async () => {
    const { fetch } = fakeFetch(() =>
      json(
        {
          error: { message: "Model vendorA/r1 is overloaded", code: "overloaded", type: "server" },
        },
        { headers: { "content-type": "application/json", "x-request-id": "req_77" } },
      ),
    );
    const error = await rejection(makeClient(fetch).complete(simpleRequest));
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(200);
    expect(apiError.requestId).toBe("req_77");
    expect(apiError.message).toBe(
      `POST ${reasonerUrl} answered 200: overloaded: Model vendorA/r1 is overloaded (request id req_77)`,
    );
    expect(apiError.body).toEqual({
      error: { message: "Model vendorA/r1 is overloaded", code: "overloaded", type: "server" },
    });
  });

  it.each([
    [
      "not JSON",
      "<html>gateway</html>",
      /answered 200 with a body that is not JSON: <html>gateway<\/html>/,
    ],
    [
      "no choices",
      JSON.stringify({ id: "x" }),
      /answered 200 with a body that has no choices array/,
    ],
    [
      "a choice without message",
      JSON.stringify({ choices: [{ index: 0, text: "hi" }] }),
      /has no message in choices\[0\]/,
    ],
    ["an array", "[]", /is not a chat.completion object/],
  ])("refuses an answer that is %s with a SwitchyardError", async (_label, body, pattern) => {
    const { fetch } = fakeFetch(() => new Response(body, { status: 200 }));
    const error = await rejection(makeClient(fetch).complete(simpleRequest));
    expect(error).toBeInstanceOf(SwitchyardError);
    expect(error.message).toMatch(pattern);
  });

  it("retries a connection failure, since a completion has no side effect", async () => {
    const { fetch, calls } = fakeFetch((callNumber) => {
      if (callNumber === 1) throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
      return json(completion);
    });
    await expect(makeClient(fetch).complete(simpleRequest)).resolves.toEqual(completion);
    expect(calls).toHaveLength(2);
  });

  it("gives up after maxRetries with a ConnectionError", async () => {
    const { fetch, calls } = fakeFetch(() => {
      throw new TypeError("fetch failed");
    });
    const error = await rejection(makeClient(fetch, { maxRetries: 1 }).complete(simpleRequest));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(calls).toHaveLength(2);
  });
});

describe("logging", () => {
  it("logs one debug line per request with its shape, never the key or the conversation", async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    const logger = pino({ level: "trace" }, destination);
    const secretContent = "the secret phrase is tangerine-42";
    const { fetch } = fakeFetch((callNumber) =>
      callNumber === 1
        ? new Response(JSON.stringify({ error: { message: `bad key ${apiKey}` } }), { status: 401 })
        : json(completion),
    );
    const client = makeClient(fetch, {
      logger,
      maxRetries: 0,
      provider: { order: ["vendorA"] },
    });
    const request = {
      model: "vendorA/v3",
      messages: [
        { role: "system" as const, content: "Be brief." },
        { role: "user" as const, content: secretContent },
      ],
    };
    const error = await rejection(client.complete(request));
    await client.complete(request);
    expect(error.message).not.toContain(apiKey);
    const text = lines.join("");
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain("tangerine");
    const requests = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "chat request");
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      level: 20,
      component: "reasoner-client",
      model: "vendorA/v3",
      stream: false,
      messages: 2,
      tools: 0,
      provider: ["vendorA"],
    });
  });
});
