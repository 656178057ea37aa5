import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../../src/clients/reasoner/chat-types.js";
import {
  findChatRequestProblems,
  validateChatRequest,
} from "../../../src/clients/reasoner/validate-chat-request.js";
import { ConfigurationError } from "../../../src/errors/index.js";
import { fakeFetch, makeClient, rejection, sseResponse } from "./reasoner-test-kit.js";

const user = { role: "user", content: "Hello" } as const;
const tool = (name: string) => ({
  type: "function" as const,
  function: {
    name,
    description: `The ${name} tool`,
    parameters: { type: "object", properties: {}, required: [] },
  },
});

/** The problems of a request built from loose JSON, as a JS caller could send. */
function problemsOf(request: Record<string, unknown>): string[] {
  return findChatRequestProblems({ messages: [user], ...request });
}

describe("findChatRequestProblems", () => {
  it("accepts a full valid request", () => {
    expect(
      problemsOf({
        model: "vendorA/r1",
        tools: [tool("list_orders"), tool("cancel-order")],
        tool_choice: { type: "function", function: { name: "list_orders" } },
        temperature: 2,
        top_p: 0,
        n: 3,
        stop: ["a", "b", "c", "d"],
        max_tokens: 512,
        presence_penalty: -2,
        frequency_penalty: 2,
        extra_body: {
          provider: { order: ["vendorA"], allow_fallbacks: false, require: ["tools"] },
          compression: {
            token_limit: 8000,
            mmr_lambda_text: 0,
            mmr_lambda_code: 1,
            embedding_provider: "vendorC",
          },
          other: { kept: true },
        },
      }),
    ).toEqual([]);
    expect(problemsOf({ stop: "END", tool_choice: "none" })).toEqual([]);
  });

  it.each([
    [{ temperature: 3 }, "temperature 3 is outside 0..2"],
    [{ temperature: -0.1 }, "temperature -0.1 is outside 0..2"],
    [{ temperature: Number.NaN }, "temperature NaN is outside 0..2"],
    [{ temperature: "hot" }, 'temperature "hot" is not a number in 0..2'],
    [{ top_p: 1.5 }, "top_p 1.5 is outside 0..1"],
    [{ n: 0 }, "n 0 is not a positive integer"],
    [{ n: 1.5 }, "n 1.5 is not a positive integer"],
    [{ max_tokens: -1 }, "max_tokens -1 is not a positive integer"],
    [{ stop: ["a", "b", "c", "d", "e"] }, "stop has 5 entries, at most 4"],
    [{ stop: 4 }, "stop 4 is not a string or an array of strings"],
    [{ stop: ["a", 1] }, 'stop ["a",1] is not an array of strings'],
    [{ presence_penalty: -3 }, "presence_penalty -3 is outside -2..2"],
    [{ frequency_penalty: 2.5 }, "frequency_penalty 2.5 is outside -2..2"],
    [{ model: "" }, 'model "" is not a non-empty string'],
    [{ extra_body: [] }, "extra_body [] is not an object"],
    [
      { extra_body: { compression: { mmr_lambda_text: 1.5 } } },
      "extra_body.compression.mmr_lambda_text 1.5 is outside 0..1",
    ],
    [
      { extra_body: { compression: { mmr_lambda_code: -1 } } },
      "extra_body.compression.mmr_lambda_code -1 is outside 0..1",
    ],
    [
      { extra_body: { compression: { token_limit: 0 } } },
      "extra_body.compression.token_limit 0 is not a positive integer",
    ],
    [
      { extra_body: { compression: { embedding_provider: "" } } },
      'extra_body.compression.embedding_provider "" is not a non-empty string',
    ],
    [
      { extra_body: { provider: { order: "vendorA" } } },
      'extra_body.provider.order "vendorA" is not an array of strings',
    ],
    [
      { extra_body: { provider: { allow_fallbacks: "yes" } } },
      'extra_body.provider.allow_fallbacks "yes" is not a boolean',
    ],
    [
      { extra_body: { provider: { require: [1] } } },
      "extra_body.provider.require [1] is not an array of strings",
    ],
    [
      { tools: [tool("a"), tool("b")], tool_choice: { type: "function", function: { name: "x" } } },
      'tool_choice names tool "x", which is not in tools (available: a, b)',
    ],
    [
      { tool_choice: { type: "function", function: { name: "x" } } },
      'tool_choice names tool "x", which is not in tools (available: none)',
    ],
    [
      { tool_choice: "required" },
      'tool_choice "required" is not "none", "auto" or {type: "function", function: {name}}',
    ],
    [{ tools: {} }, "tools {} is not an array of tool definitions"],
    [
      { tools: [tool("bad name")] },
      'tools[0].function.name "bad name" does not match ^[a-zA-Z0-9_-]{1,64}$',
    ],
    [
      { tools: [tool("x".repeat(65))] },
      `tools[0].function.name "${"x".repeat(56)}... has 65 characters, at most 64`,
    ],
    [
      { tools: [{ type: "function", function: { name: "a", parameters: "{}" } }] },
      'tools[0].function.parameters "{}" is not an object (a JSON Schema of type "object")',
    ],
    [
      { tools: [{ type: "function", function: { name: "a", parameters: { type: "string" } } }] },
      'tools[0].function.parameters.type "string" is not "object"',
    ],
    [
      { tools: [{ type: "retrieval", function: { name: "a", parameters: {} } }] },
      'tools[0].type "retrieval" is not "function"',
    ],
    [
      { tools: [tool("a"), tool("a")] },
      'tools[1].function.name "a" is used by an earlier tool too',
    ],
    [
      { stream: true },
      "stream is set by the method called: use stream() for a streamed answer and complete() for a whole one",
    ],
  ])("reports %j as %s", (request, problem) => {
    expect(problemsOf(request)).toEqual([problem]);
  });

  it.each([
    [{ messages: undefined }, "messages is missing: give at least one message"],
    [{ messages: [] }, "messages is empty: give at least one message"],
    [{ messages: "hi" }, 'messages "hi" is not an array of messages'],
    [
      { messages: [{ role: "bot", content: "x" }] },
      'messages[0].role "bot" is not one of system, user, assistant, tool, function',
    ],
    [
      { messages: [user, { role: "tool", content: "42" }] },
      "messages[1] (tool) has no tool_call_id: give the id of the tool call it answers",
    ],
    [
      { messages: [{ role: "user", content: null }] },
      "messages[0].content (user) is null; use a string",
    ],
    [
      { messages: [{ role: "system", content: 5 }] },
      "messages[0].content (system) is a number; use a string",
    ],
    [
      { messages: [user, { role: "assistant", content: null }] },
      "messages[1] (assistant) has neither content nor tool_calls",
    ],
    [
      {
        messages: [
          user,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "", type: "function", function: { name: "a", arguments: {} } }],
          },
        ],
      },
      [
        'messages[1].tool_calls[0].id "" is not a non-empty string',
        "messages[1].tool_calls[0].function.arguments is an object; use the JSON text of the arguments",
      ],
    ],
    [
      { messages: [user, { role: "function", content: "x" }] },
      "messages[1] (function) has no name: give the name of the function it answers",
    ],
  ])("reports messages %j", (request, problem) => {
    expect(findChatRequestProblems(request)).toEqual(Array.isArray(problem) ? problem : [problem]);
  });

  it("accepts tool and function messages with null content and an assistant turn with only tool calls", () => {
    const request: ChatRequest = {
      messages: [
        { role: "system", content: "Be brief." },
        user,
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "a", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "[]" },
        { role: "function", name: "a", content: null },
      ],
    };
    expect(findChatRequestProblems(request)).toEqual([]);
  });

  it("reports every problem at once, never echoing message contents", () => {
    const secret = "my-secret-phrase-in-a-message";
    const problems = findChatRequestProblems({
      messages: [
        { role: "user", content: { text: secret } },
        { role: "tool", content: "x" },
      ],
      temperature: 3,
      stop: ["1", "2", "3", "4", "5"],
      n: 0,
      extra_body: { compression: { mmr_lambda_text: 1.5, token_limit: 0 } },
    });
    expect(problems).toEqual([
      "messages[0].content (user) is an object; use a string",
      "messages[1] (tool) has no tool_call_id: give the id of the tool call it answers",
      "temperature 3 is outside 0..2",
      "n 0 is not a positive integer",
      "stop has 5 entries, at most 4",
      "extra_body.compression.token_limit 0 is not a positive integer",
      "extra_body.compression.mmr_lambda_text 1.5 is outside 0..1",
    ]);
    expect(problems.join("\n")).not.toContain(secret);
  });

  it("in merge mode refuses extra_body keys that would overwrite a top-level parameter", () => {
    const request = {
      messages: [user],
      model: "oss-120b",
      extra_body: { model: "x", stream: true },
    };
    expect(findChatRequestProblems(request)).toEqual([]);
    expect(findChatRequestProblems(request, { extraBodyMode: "merge" })).toEqual([
      "extra_body.model would overwrite the top-level model in merge mode; set it in one place",
      "extra_body.stream would overwrite the top-level stream in merge mode; set it in one place",
    ]);
  });

  it("refuses a request that is not an object", () => {
    expect(findChatRequestProblems(null)).toEqual([
      "the chat request null is not an object with messages",
    ]);
  });
});

describe("validateChatRequest", () => {
  it("throws a ConfigurationError listing each problem", () => {
    let error: unknown;
    try {
      validateChatRequest({ messages: [user], temperature: 3, top_p: 2 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual([
      "temperature 3 is outside 0..2",
      "top_p 2 is outside 0..1",
    ]);
    expect((error as Error).message).toBe(
      "2 problems:\n- temperature 3 is outside 0..2\n- top_p 2 is outside 0..1",
    );
  });

  it("passes a valid request", () => {
    expect(() => validateChatRequest({ messages: [user] })).not.toThrow();
  });
});

describe("ReasonerClient validates before sending", () => {
  const bad = { messages: [user], temperature: 3, presence_penalty: -3 } as ChatRequest;

  it("complete() rejects with every problem and sends nothing", async () => {
    const { fetch, calls } = fakeFetch(() => new Response("{}"));
    const error = await rejection(makeClient(fetch).complete(bad));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual([
      "temperature 3 is outside 0..2",
      "presence_penalty -3 is outside -2..2",
    ]);
    expect(calls).toHaveLength(0);
  });

  it("stream() throws at once and sends nothing", () => {
    const { fetch, calls } = fakeFetch(() => sseResponse("data: [DONE]\n\n"));
    expect(() => makeClient(fetch).stream(bad)).toThrow(ConfigurationError);
    expect(calls).toHaveLength(0);
  });

  it("checks the client's defaults merged into the request", async () => {
    const { fetch, calls } = fakeFetch(() => new Response("{}"));
    const client = makeClient(fetch, { compression: { token_limit: 4000 } });
    const error = await rejection(
      client.complete({ messages: [user], extra_body: { compression: { mmr_lambda_code: 7 } } }),
    );
    expect((error as ConfigurationError).problems).toEqual([
      "extra_body.compression.mmr_lambda_code 7 is outside 0..1",
    ]);
    expect(calls).toHaveLength(0);
  });
});
