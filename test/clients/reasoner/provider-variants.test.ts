import { describe, expect, it } from "vitest";
import { StreamError } from "../../../src/clients/reasoner/stream-error.js";
import {
  fakeFetch,
  makeClient,
  rejection,
  simpleRequest,
  sseResponse,
} from "./reasoner-test-kit.js";

// What the stream fixtures do not cover: errors printed over several lines,
// stray text before a stream ends, legacy `function_call`, and the same
// provider variants in a whole (non-streamed) answer.

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices, ...extra })}\n\n`;
const opening = chunk([{ index: 0, delta: { role: "assistant", content: "Un instant" } }]);

const jsonResponse = (body: unknown) =>
  new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });

describe("lines outside any event", () => {
  it("an error printed over several lines is the run's error, with the provider's words", async () => {
    const body = `${opening}{\n  "error": {\n    "message": "Quota exceeded for vendorA",\n    "code": "quota_exceeded"\n  }\n}\n`;
    const { fetch } = fakeFetch(() => sseResponse(body));
    const error = await rejection(makeClient(fetch).stream(simpleRequest).finalCompletion());
    expect(error).toBeInstanceOf(StreamError);
    expect(error).toMatchObject({
      kind: "provider_error",
      code: "quota_exceeded",
      detail: "Quota exceeded for vendorA",
    });
  });

  it("text that is not an error still explains a stream that ends early", async () => {
    const body = `${opening}upstream connect error or disconnect/reset before headers\n`;
    const { fetch } = fakeFetch(() => sseResponse(body));
    const error = await rejection(makeClient(fetch).stream(simpleRequest).finalCompletion());
    expect(error).toMatchObject({ kind: "incomplete" });
    expect((error as StreamError).detail).toContain(
      "outside any event: upstream connect error or disconnect/reset before headers",
    );
  });

  it("JSON that is not an error is ignored, and the answer completes", async () => {
    const body = `${opening}{"note":"heartbeat"}\n${chunk([{ index: 0, delta: {}, finish_reason: "stop" }])}data: [DONE]\n\n`;
    const { fetch } = fakeFetch(() => sseResponse(body));
    const completion = await makeClient(fetch).stream(simpleRequest).finalCompletion();
    expect(completion.choices[0]?.message.content).toBe("Un instant");
  });
});

describe("legacy function_call", () => {
  it("a streamed function_call is assembled from its fragments", async () => {
    const body = [
      chunk([
        {
          index: 0,
          delta: {
            role: "assistant",
            content: null,
            function_call: { name: "list_orders", arguments: "" },
          },
        },
      ]),
      chunk([{ index: 0, delta: { function_call: { arguments: '{"status":' } } }]),
      chunk([{ index: 0, delta: { function_call: { arguments: '"open"}' } } }]),
      chunk([{ index: 0, delta: {}, finish_reason: "function_call" }]),
      "data: [DONE]\n\n",
    ].join("");
    const { fetch } = fakeFetch(() => sseResponse(body));
    const completion = await makeClient(fetch).stream(simpleRequest).finalCompletion();
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: "assistant",
        content: null,
        function_call: { name: "list_orders", arguments: '{"status":"open"}' },
      },
      finish_reason: "function_call",
    });
  });

  it("a whole answer's function_call keeps its name and gets its arguments as text", async () => {
    const { fetch } = fakeFetch(() =>
      jsonResponse({
        id: "c2",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              function_call: { name: "list_orders", arguments: { status: "open" } },
            },
            finish_reason: "function_call",
          },
        ],
      }),
    );
    const completion = await makeClient(fetch).complete(simpleRequest);
    expect(completion.choices[0]?.message.function_call).toEqual({
      name: "list_orders",
      arguments: '{"status":"open"}',
    });
  });
});

describe("a whole (non-streamed) answer from other providers", () => {
  it("reads content parts, usage inside the choice, and arguments sent as an object", async () => {
    const { fetch } = fakeFetch(() =>
      jsonResponse({
        id: "c3",
        object: "chat.completion",
        created: 1,
        model: "magistral",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: [
                { type: "thinking", thinking: [{ type: "text", text: "Je vérifie." }] },
                { type: "text", text: "Voici les commandes." },
              ],
              tool_calls: [
                {
                  id: "call_1",
                  type: "function",
                  function: { name: "list_orders", arguments: { city: "Zürich" } },
                },
              ],
            },
            finish_reason: "tool_calls",
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          },
        ],
      }),
    );
    const completion = await makeClient(fetch).complete(simpleRequest);
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe("Voici les commandes.");
    expect(message?.reasoning).toBe("Je vérifie.");
    expect(message?.tool_calls?.[0]?.function.arguments).toBe('{"city":"Zürich"}');
    expect(completion.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
  });

  it("reads usage from a vendor extension such as x_groq", async () => {
    const { fetch } = fakeFetch(() =>
      jsonResponse({
        id: "c4",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [
          { index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" },
        ],
        x_groq: { id: "req_1", usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } },
      }),
    );
    const completion = await makeClient(fetch).complete(simpleRequest);
    expect(completion.usage).toEqual({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
  });
});
