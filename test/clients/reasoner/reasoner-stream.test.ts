import { describe, expect, it } from "vitest";
import type { Model } from "../../../src/agent/model.js";
import type { ChatStreamEvent } from "../../../src/clients/reasoner/chat-types.js";
import { StreamError } from "../../../src/clients/reasoner/stream-error.js";
import {
  AbortedError,
  ConnectionError,
  RateLimitError,
  SwitchyardError,
  TimeoutError,
} from "../../../src/errors/index.js";
import {
  collect,
  expectEventsToRebuild,
  fakeFetch,
  makeClient,
  rejection,
  simpleRequest,
  sseResponse,
} from "./reasoner-test-kit.js";

const encoder = new TextEncoder();

function chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra = {}) {
  return `data: ${JSON.stringify({
    id: "chatcmpl-s",
    object: "chat.completion.chunk",
    created: 1760000000,
    model: "oss-120b",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  })}\n\n`;
}

const roleChunk = chunk({ role: "assistant", content: "" });
const goodStream = `${roleChunk}${chunk({ content: "Bonjour" })}${chunk({}, "stop")}data: [DONE]\n\n`;
const errorEvent = 'event: error\ndata: {"error":{"message":"overloaded","code":503}}\n\n';

const wait = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe("retries before the first event", () => {
  it("sends again after a 503, honouring Retry-After, and the caller sees one clean stream", async () => {
    const { fetch, calls } = fakeFetch((callNumber) =>
      callNumber === 1
        ? new Response('{"error":{"message":"busy"}}', {
            status: 503,
            headers: { "retry-after": "0" },
          })
        : sseResponse(goodStream),
    );
    const { events, completion } = await collect(makeClient(fetch).stream(simpleRequest));
    expect(calls).toHaveLength(2);
    expect(completion.choices[0]?.message.content).toBe("Bonjour");
    expect(events.map((event) => event.type)).toEqual(["text-delta", "finish"]);
  });

  it("sends again after a connection failure", async () => {
    const { fetch, calls } = fakeFetch((callNumber) => {
      if (callNumber === 1) throw new TypeError("fetch failed");
      return sseResponse(goodStream);
    });
    await makeClient(fetch).stream(simpleRequest).finalCompletion();
    expect(calls).toHaveLength(2);
  });

  it("sends again after an error event that came before any delta", async () => {
    const { fetch, calls } = fakeFetch((callNumber) =>
      sseResponse(callNumber === 1 ? `${roleChunk}: keep-alive\n\n${errorEvent}` : goodStream),
    );
    const { events } = await collect(makeClient(fetch).stream(simpleRequest));
    expect(calls).toHaveLength(2);
    expect(events[0]).toEqual({ type: "text-delta", choiceIndex: 0, delta: "Bonjour" });
  });

  it("sends again after a body that ended before anything, and after a top-level error chunk", async () => {
    const { fetch, calls } = fakeFetch((callNumber) => {
      if (callNumber === 1) return sseResponse("");
      if (callNumber === 2)
        return sseResponse(chunk({}, null, { error: { message: "try later" } }));
      return sseResponse(goodStream);
    });
    await makeClient(fetch).stream(simpleRequest).finalCompletion();
    expect(calls).toHaveLength(3);
  });

  it("sends at most maxRetries more times, then surfaces the last error", async () => {
    const { fetch, calls } = fakeFetch(() => sseResponse(errorEvent));
    const error = await rejection(
      makeClient(fetch, { maxRetries: 3 }).stream(simpleRequest).finalCompletion(),
    );
    expect(error).toBeInstanceOf(StreamError);
    expect(error).toMatchObject({ kind: "provider_error", code: 503, detail: "overloaded" });
    expect(calls).toHaveLength(4);
  });

  it("shares one retry budget between statuses and stream failures", async () => {
    const { fetch, calls } = fakeFetch((callNumber) =>
      callNumber % 2 === 1
        ? new Response("slow down", { status: 429, headers: { "retry-after": "0" } })
        : sseResponse(errorEvent),
    );
    const error = await rejection(
      makeClient(fetch, { maxRetries: 2 }).stream(simpleRequest).finalCompletion(),
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect(calls).toHaveLength(3);
  });

  it("does not send again after a 400 or a malformed stream", async () => {
    const badRequest = fakeFetch(
      () => new Response('{"error":{"message":"bad"}}', { status: 400 }),
    );
    await rejection(makeClient(badRequest.fetch).stream(simpleRequest).finalCompletion());
    expect(badRequest.calls).toHaveLength(1);
    const malformed = fakeFetch(() => sseResponse("data: {oops\n\n"));
    const error = await rejection(
      makeClient(malformed.fetch).stream(simpleRequest).finalCompletion(),
    );
    expect(error).toMatchObject({ kind: "malformed" });
    expect(malformed.calls).toHaveLength(1);
  });
});

describe("after the first event", () => {
  it("surfaces an error event without sending again, after the events already seen", async () => {
    const { fetch, calls } = fakeFetch(() =>
      sseResponse(`${roleChunk}${chunk({ content: "Je com" })}${errorEvent}`),
    );
    const seen: ChatStreamEvent[] = [];
    const stream = makeClient(fetch, { maxRetries: 5 }).stream(simpleRequest);
    const error = await rejection(
      (async () => {
        for await (const event of stream) seen.push(event);
      })(),
    );
    expect(seen).toEqual([{ type: "text-delta", choiceIndex: 0, delta: "Je com" }]);
    expect(error).toMatchObject({ name: "StreamError", kind: "provider_error", code: 503 });
    expect(calls).toHaveLength(1);
  });

  it("surfaces a broken connection as a ConnectionError without sending again", async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        if (pulls === 1) controller.enqueue(encoder.encode(chunk({ content: "Bon" })));
        else controller.error(new TypeError("terminated"));
      },
    });
    const { fetch, calls } = fakeFetch(
      () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
    const error = await rejection(makeClient(fetch).stream(simpleRequest).finalCompletion());
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/the connection broke while reading the answer/);
    expect(calls).toHaveLength(1);
  });
});

describe("idle timeout", () => {
  it("raises a TimeoutError when the stream goes silent between chunks", async () => {
    const { fetch, calls } = fakeFetch(() =>
      sseResponse([encoder.encode(`${roleChunk}${chunk({ content: "Bon" })}`)], { stall: true }),
    );
    // The stream stalls forever: only the idle timeout can end the read.
    const error = await rejection(
      makeClient(fetch, { streamIdleTimeoutMs: 50 }).stream(simpleRequest).finalCompletion(),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(50);
    expect(calls).toHaveLength(1);
  });

  it("retries a stream that stays silent before its first event", async () => {
    const { fetch, calls } = fakeFetch((callNumber) =>
      callNumber === 1 ? sseResponse([], { stall: true }) : sseResponse(goodStream),
    );
    await makeClient(fetch, { streamIdleTimeoutMs: 30 }).stream(simpleRequest).finalCompletion();
    expect(calls).toHaveLength(2);
  });

  it("does not count the time the caller spends on an event", async () => {
    const { fetch } = fakeFetch(() => sseResponse(goodStream));
    const stream = makeClient(fetch, { streamIdleTimeoutMs: 30 }).stream(simpleRequest);
    for await (const _event of stream) await wait(80);
    expect((await stream.finalCompletion()).choices[0]?.message.content).toBe("Bonjour");
  });
});

describe("abort and early exit", () => {
  it("the caller's signal cancels the body read mid-stream with an AbortedError", async () => {
    let cancelled = false;
    const { fetch, calls } = fakeFetch(() =>
      sseResponse([encoder.encode(`${roleChunk}${chunk({ content: "Bon" })}`)], {
        stall: true,
        onCancel: () => {
          cancelled = true;
        },
      }),
    );
    const controller = new AbortController();
    const stream = makeClient(fetch).stream(simpleRequest, { signal: controller.signal });
    const error = await rejection(
      (async () => {
        for await (const event of stream) {
          if (event.type === "text-delta") setTimeout(() => controller.abort(), 10);
        }
      })(),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(cancelled).toBe(true);
    await expect(stream.finalCompletion()).rejects.toBe(error);
    expect(calls).toHaveLength(1);
  });

  it("an already aborted signal sends nothing", async () => {
    const { fetch, calls } = fakeFetch(() => sseResponse(goodStream));
    const error = await rejection(
      makeClient(fetch).stream(simpleRequest, { signal: AbortSignal.abort() }).finalCompletion(),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(calls).toHaveLength(0);
  });

  it("leaving the loop early cancels the body, and finalCompletion() then rejects", async () => {
    let cancelled = false;
    const { fetch } = fakeFetch(() =>
      sseResponse([encoder.encode(`${roleChunk}${chunk({ content: "Bon" })}`)], {
        stall: true,
        onCancel: () => {
          cancelled = true;
        },
      }),
    );
    const stream = makeClient(fetch).stream(simpleRequest);
    for await (const _event of stream) break;
    expect(cancelled).toBe(true);
    await expect(stream.finalCompletion()).rejects.toBeInstanceOf(AbortedError);
  });
});

describe("the stream object", () => {
  it("is a Model: the agent can use the client as is", () => {
    const { fetch } = fakeFetch(() => sseResponse(goodStream));
    const model: Model = makeClient(fetch);
    expect(typeof model.complete).toBe("function");
  });

  it("keeps the answer for a caller who stops at the finish event", async () => {
    const { fetch } = fakeFetch(() => sseResponse(goodStream));
    const stream = makeClient(fetch).stream(simpleRequest);
    for await (const event of stream) if (event.type === "finish") break;
    expect((await stream.finalCompletion()).choices[0]?.message.content).toBe("Bonjour");
  });

  it("settles finalCompletion() when the loop is closed before its first step", async () => {
    const { fetch, calls } = fakeFetch(() => sseResponse(goodStream));
    const stream = makeClient(fetch).stream(simpleRequest);
    await stream[Symbol.asyncIterator]().return?.();
    await expect(stream.finalCompletion()).rejects.toBeInstanceOf(AbortedError);
    expect(calls).toHaveLength(0);
  });

  it("sends nothing until it is read", async () => {
    const { fetch, calls } = fakeFetch(() => sseResponse(goodStream));
    const stream = makeClient(fetch).stream(simpleRequest);
    await wait(5);
    expect(calls).toHaveLength(0);
    await stream.finalCompletion();
    expect(calls).toHaveLength(1);
  });

  it("can be iterated once; finalCompletion() during iteration gives the same answer", async () => {
    const { fetch } = fakeFetch(() => sseResponse(goodStream));
    const stream = makeClient(fetch).stream(simpleRequest);
    const final = stream.finalCompletion();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(SwitchyardError);
    expect((await final).choices[0]?.message.content).toBe("Bonjour");
    const other = makeClient(fetch).stream(simpleRequest);
    const iterator = other[Symbol.asyncIterator]();
    const pending = other.finalCompletion();
    while (!(await iterator.next()).done) {
      // Reading to the end.
    }
    expect(await pending).toEqual(await final);
  });

  it("ignores named events whose data is not a chunk", async () => {
    const { fetch } = fakeFetch(() => sseResponse(`event: ping\ndata: alive\n\n${goodStream}`));
    const completion = await makeClient(fetch).stream(simpleRequest).finalCompletion();
    expect(completion.choices[0]?.message.content).toBe("Bonjour");
  });

  it("answers a streamed request answered with plain JSON with the same events", async () => {
    const answer = {
      id: "c1",
      object: "chat.completion",
      created: 5,
      model: "vendorC/small-3-24b",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "a", arguments: "{}" } },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    };
    const { fetch } = fakeFetch(
      () =>
        new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } }),
    );
    const { events, completion } = await collect(makeClient(fetch).stream(simpleRequest));
    expect(completion).toEqual(answer);
    expectEventsToRebuild(events, completion);
  });
});

describe("tool call assembly edge cases", () => {
  const toolChunk = (toolCalls: unknown[], finishReason: string | null = null) =>
    chunk({ tool_calls: toolCalls }, finishReason);

  it("gives a call without a usable id a generated one, the same in events and answer", async () => {
    const { fetch } = fakeFetch(() =>
      sseResponse(
        toolChunk([{ index: 0, id: "", function: { name: "list_orders", arguments: '{"a"' } }]) +
          toolChunk([{ index: 0, function: { arguments: ":1}" } }]) +
          toolChunk([{ index: 1, function: { name: "get_sku", arguments: "{}" } }], "tool_calls"),
      ),
    );
    const { events, completion } = await collect(makeClient(fetch).stream(simpleRequest));
    const calls = completion.choices[0]?.message.tool_calls ?? [];
    expect(calls.map((call) => call.function)).toEqual([
      { name: "list_orders", arguments: '{"a":1}' },
      { name: "get_sku", arguments: "{}" },
    ]);
    expect(calls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(calls[0]?.id).not.toBe(calls[1]?.id);
    expectEventsToRebuild(events, completion);
  });

  it("starts a new call when a known index comes back with another id", async () => {
    const { fetch } = fakeFetch(() =>
      sseResponse(
        toolChunk([{ index: 0, id: "call_a", function: { name: "a", arguments: "{}" } }]) +
          toolChunk(
            [{ index: 0, id: "call_b", function: { name: "b", arguments: "{}" } }],
            "tool_calls",
          ),
      ),
    );
    const completion = await makeClient(fetch).stream(simpleRequest).finalCompletion();
    expect(completion.choices[0]?.message.tool_calls?.map((call) => call.id)).toEqual([
      "call_a",
      "call_b",
    ]);
  });

  it("holds argument fragments back until the call's name arrives", async () => {
    const { fetch } = fakeFetch(() =>
      sseResponse(
        toolChunk([{ index: 0, id: "call_a", function: { arguments: '{"x":' } }]) +
          toolChunk([{ index: 0, function: { name: "late", arguments: "1}" } }], "tool_calls"),
      ),
    );
    const { events, completion } = await collect(makeClient(fetch).stream(simpleRequest));
    expect(events[0]).toEqual({
      type: "tool-call-delta",
      choiceIndex: 0,
      toolCallIndex: 0,
      id: "call_a",
      name: "late",
      argumentsDelta: '{"x":1}',
    });
    expectEventsToRebuild(events, completion);
  });
});
