import { describe, expect, it } from "vitest";
import type { ChatCompletion } from "../../../src/clients/reasoner/chat-types.js";
import { StreamError } from "../../../src/clients/reasoner/stream-error.js";
import {
  bytewise,
  collect,
  expectEventsToRebuild,
  expectedCompletion,
  fakeFetch,
  fixtureBytes,
  makeClient,
  rejection,
  seededRandom,
  simpleRequest,
  splitBytes,
  sseResponse,
} from "./reasoner-test-kit.js";

const randomSplits = 200;

/** Tool calls sent without ids get ids of their own: any string in their place. */
function withAnyToolCallIds(completion: ChatCompletion): ChatCompletion {
  return {
    ...completion,
    choices: completion.choices.map((choice) => ({
      ...choice,
      message: {
        ...choice.message,
        tool_calls: (choice.message.tool_calls ?? []).map((call) => ({
          ...call,
          id: expect.any(String) as unknown as string,
        })),
      },
    })),
  };
}

const groups: {
  expected: string;
  fixtures: string[];
  /** The expected completion as compared, when not exactly the file's. */
  adjust?: (completion: ChatCompletion) => ChatCompletion;
}[] = [
  {
    expected: "tool-calls.expected.json",
    fixtures: [
      "kimi-fresh-id-fragments.sse",
      "openai-split.sse",
      "whole-tool-calls.sse",
      "whole-calls-one-chunk.sse",
      "missing-index.sse",
      "index-from-3.sse",
      "repeated-id-type-name.sse",
      "repeated-no-index.sse",
      "usage-on-finish.sse",
      "usage-no-choices.sse",
      "keep-alive-comments.sse",
      "crlf.sse",
      "usage-in-choice.sse",
      "arguments-object.sse",
    ],
  },
  {
    expected: "reasoning.expected.json",
    fixtures: [
      "reasoning-content.sse",
      "reasoning-field.sse",
      "content-parts-thinking.sse",
      "content-parts-reasoning.sse",
    ],
  },
  {
    expected: "tool-calls.expected.json",
    fixtures: ["ollama-whole-calls-index-0.sse", "whole-calls-index-0-one-chunk.sse"],
    adjust: withAnyToolCallIds,
  },
  { expected: "no-arguments.expected.json", fixtures: ["tool-call-no-arguments.sse"] },
  { expected: "usage-x-groq.expected.json", fixtures: ["usage-x-groq.sse"] },
  { expected: "two-choices.expected.json", fixtures: ["two-choices.sse"] },
];

/** Replays `bytes` once per split list, alternately iterating and only awaiting finalCompletion(). */
async function replay(bytes: Uint8Array, splits: Uint8Array[][], expected: ChatCompletion) {
  let next = 0;
  const { fetch } = fakeFetch(() => sseResponse(splits[next++]!));
  const client = makeClient(fetch);
  for (let run = 0; run < splits.length; run++) {
    const stream = client.stream(simpleRequest);
    if (run % 2 === 0) {
      const { events, completion } = await collect(stream);
      expect(completion).toEqual(expected);
      expectEventsToRebuild(events, completion);
    } else {
      expect(await stream.finalCompletion()).toEqual(expected);
    }
  }
  expect(next).toBe(splits.length);
  expect(bytes.length).toBeGreaterThan(0);
}

function seedOf(name: string): number {
  let seed = 7;
  for (const character of name) seed = (seed * 31 + character.charCodeAt(0)) >>> 0;
  return seed;
}

function randomSplitsOf(bytes: Uint8Array, name: string, count: number): Uint8Array[][] {
  const random = seededRandom(seedOf(name));
  return Array.from({ length: count }, () => splitBytes(bytes, random));
}

function toCrlf(bytes: Uint8Array): Uint8Array {
  const text = new TextDecoder().decode(bytes);
  return new TextEncoder().encode(text.replace(/\r?\n/g, "\r\n"));
}

describe("stream fixtures", () => {
  it("exercise what they claim: multi-byte characters everywhere, CRLF, comments", () => {
    for (const { fixtures } of groups) {
      for (const name of fixtures) {
        expect(fixtureBytes(name).some((byte) => byte >= 0x80)).toBe(true);
      }
    }
    const crlf = new TextDecoder().decode(fixtureBytes("crlf.sse"));
    expect(crlf.split("\r\n").length).toBeGreaterThan(20);
    expect(crlf.replaceAll("\r\n", "")).not.toMatch(/[\r\n]/);
    const comments = new TextDecoder().decode(fixtureBytes("keep-alive-comments.sse"));
    expect(comments).toMatch(/^: keep-alive$/m);
  });

  for (const group of groups) {
    const expected = (group.adjust ?? ((completion) => completion))(
      expectedCompletion(group.expected),
    );
    describe(`${group.expected.replace(".expected.json", "")}${group.adjust ? " (ids of our own)" : ""}`, () => {
      for (const name of group.fixtures) {
        it(`${name} assembles the expected completion one byte per read`, async () => {
          const bytes = fixtureBytes(name);
          await replay(bytes, [bytewise(bytes)], expected);
        });

        it(`${name} assembles the expected completion under ${randomSplits} random splits`, async () => {
          const bytes = fixtureBytes(name);
          await replay(bytes, randomSplitsOf(bytes, name, randomSplits), expected);
        });

        it(`${name} with CRLF line ends assembles the same completion`, async () => {
          const bytes = toCrlf(fixtureBytes(name));
          await replay(
            bytes,
            [bytewise(bytes), ...randomSplitsOf(bytes, `${name}\r\n`, 30)],
            expected,
          );
        });
      }
    });
  }
});

describe("failing stream fixtures", () => {
  const cases = [
    {
      name: "error-event.sse",
      kind: "provider_error",
      code: 502,
      detail: "Upstream provider overloaded",
    },
    {
      name: "top-level-error.sse",
      kind: "provider_error",
      code: 429,
      detail: "Rate limit exceeded upstream: vendorB",
    },
    {
      name: "bare-json-error.sse",
      kind: "provider_error",
      code: 503,
      detail: "Upstream model vendorB/2.5-max is overloaded; retry in 30 s",
    },
    {
      name: "fastchat-error-code.sse",
      kind: "provider_error",
      code: 50002,
      detail: "(CUDA out of memory. Tried to allocate 20.00 MiB)",
    },
    { name: "truncated.sse", kind: "incomplete", code: undefined, detail: "finish_reason" },
    { name: "malformed.sse", kind: "malformed", code: undefined, detail: "not JSON" },
  ] as const;

  for (const failure of cases) {
    it(`${failure.name} raises a ${failure.kind} StreamError after its first events, under random splits, without a retry`, async () => {
      const bytes = fixtureBytes(failure.name);
      const splits = [bytewise(bytes), ...randomSplitsOf(bytes, failure.name, 40)];
      let next = 0;
      const { fetch, calls } = fakeFetch(() => sseResponse(splits[next++]!));
      const client = makeClient(fetch, { maxRetries: 3 });
      for (let run = 0; run < splits.length; run++) {
        const stream = client.stream(simpleRequest);
        const seen: string[] = [];
        const error = await rejection(
          (async () => {
            for await (const event of stream) seen.push(event.type);
          })(),
        );
        expect(error).toBeInstanceOf(StreamError);
        const streamError = error as StreamError;
        expect(streamError.kind).toBe(failure.kind);
        expect(streamError.code).toBe(failure.code);
        expect(streamError.detail).toContain(failure.detail);
        expect(streamError.message).toContain(
          "POST https://reasoner.example.com/v1/chat/completions",
        );
        expect(seen.length).toBeGreaterThan(0);
        await expect(stream.finalCompletion()).rejects.toBe(error);
      }
      expect(calls).toHaveLength(splits.length);
    });
  }
});

describe("a stream that ends with [DONE] but never sends a finish_reason", () => {
  const name = "done-without-finish-reason.sse";
  const expected = expectedCompletion("done-without-finish-reason.expected.json");

  it("is a complete answer with finish_reason null, under awkward splits and CRLF", async () => {
    const bytes = fixtureBytes(name);
    const crlf = toCrlf(bytes);
    const splits = [
      bytewise(bytes),
      ...randomSplitsOf(bytes, name, 60),
      bytewise(crlf),
      ...randomSplitsOf(crlf, `${name}\r\n`, 20),
    ];
    let next = 0;
    const { fetch } = fakeFetch(() => sseResponse(splits[next++]!));
    const client = makeClient(fetch, { maxRetries: 0 });
    for (let run = 0; run < splits.length; run++) {
      const { events, completion } = await collect(client.stream(simpleRequest));
      expect(completion).toEqual(expected);
      const text = events.flatMap((event) => (event.type === "text-delta" ? [event.delta] : []));
      expect(text.join("")).toBe(expected.choices[0]!.message.content);
      // A finish event carries a reason; this answer has none to give.
      expect(events.filter((event) => event.type === "finish")).toEqual([]);
    }
    expect(next).toBe(splits.length);
  });

  it("is still incomplete when the same stream is cut before [DONE]", async () => {
    const text = new TextDecoder().decode(fixtureBytes(name));
    const cut = new TextEncoder().encode(text.replace("data: [DONE]\n\n", ""));
    expect(cut.length).toBeLessThan(fixtureBytes(name).length);
    const splits = [bytewise(cut), ...randomSplitsOf(cut, `${name} cut`, 20)];
    let next = 0;
    const { fetch, calls } = fakeFetch(() => sseResponse(splits[next++]!));
    const client = makeClient(fetch, { maxRetries: 3 });
    for (let run = 0; run < splits.length; run++) {
      const error = await rejection(client.stream(simpleRequest).finalCompletion());
      expect(error).toBeInstanceOf(StreamError);
      expect((error as StreamError).kind).toBe("incomplete");
      expect((error as StreamError).detail).toContain("before a finish_reason for choice 0");
    }
    expect(calls).toHaveLength(splits.length);
  });
});
