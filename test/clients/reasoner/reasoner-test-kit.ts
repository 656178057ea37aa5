import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type {
  ChatCompletion,
  ChatRequest,
  ChatStreamEvent,
} from "../../../src/clients/reasoner/chat-types.js";
import {
  ReasonerClient,
  type ReasonerClientOptions,
} from "../../../src/clients/reasoner/reasoner-client.js";

export const apiKey = "sk-reasoner-test-8f2b1c9d4e";
export const reasonerUrl = "https://reasoner.example.com/v1/chat/completions";

export const simpleRequest: ChatRequest = {
  messages: [{ role: "user", content: "Which orders are open in Zürich?" }],
};

const fixtureFolder = fileURLToPath(new URL("../../fixtures/streams/", import.meta.url));

/** The raw bytes of a stream fixture. */
export function fixtureBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(`${fixtureFolder}${name}`));
}

/** The expected completion of a fixture group. */
export function expectedCompletion(name: string): ChatCompletion {
  return JSON.parse(readFileSync(`${fixtureFolder}${name}`, "utf8")) as ChatCompletion;
}

/** A seeded PRNG (mulberry32): the same seed gives the same splits on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Cuts bytes into reads the way a network might: sometimes a few large
 * pieces, sometimes many tiny ones, so cuts fall inside UTF-8 characters,
 * between CR and LF, and inside `data:` prefixes.
 */
export function splitBytes(bytes: Uint8Array, random: () => number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  const tiny = random() < 0.5;
  let start = 0;
  while (start < bytes.length) {
    const size = tiny ? 1 + Math.floor(random() * 7) : 1 + Math.floor(random() * 400);
    pieces.push(bytes.subarray(start, Math.min(bytes.length, start + size)));
    start += size;
  }
  return pieces;
}

/** Every byte its own read: every boundary of the fixture is a split. */
export function bytewise(bytes: Uint8Array): Uint8Array[] {
  return Array.from(bytes, (_byte, index) => bytes.subarray(index, index + 1));
}

/** A body that hands out `pieces` one read at a time, then ends (or stalls when `stall`). */
export function bodyOf(
  pieces: readonly Uint8Array[],
  options: { stall?: boolean; onCancel?: () => void } = {},
): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = pieces[next++];
      if (piece) controller.enqueue(piece);
      else if (!options.stall) controller.close();
      else return new Promise<void>(() => {});
    },
    cancel() {
      options.onCancel?.();
    },
  });
}

/** A 200 `text/event-stream` answer made of `pieces`. */
export function sseResponse(
  pieces: readonly Uint8Array[] | string,
  options: { stall?: boolean; onCancel?: () => void } = {},
): Response {
  const parts = typeof pieces === "string" ? [new TextEncoder().encode(pieces)] : pieces;
  return new Response(bodyOf(parts, options), {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8" },
  });
}

/** One call the fake fetch received. */
export interface RecordedCall {
  url: string;
  method: string;
  headers: Headers;
  body: Record<string, unknown>;
  signal: AbortSignal | undefined;
}

/** A fetch that records each call and answers with `answer(callNumber)`. */
export function fakeFetch(
  answer: (callNumber: number, call: RecordedCall) => Response | Promise<Response>,
) {
  const calls: RecordedCall[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call: RecordedCall = {
      url: String(input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {},
      signal: init?.signal ?? undefined,
    };
    calls.push(call);
    return answer(calls.length, call);
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

/** A client on a fake fetch with fast retries. */
export function makeClient(
  fetch: typeof globalThis.fetch,
  options: Partial<ReasonerClientOptions> = {},
): ReasonerClient {
  return new ReasonerClient({
    url: reasonerUrl,
    apiKey,
    fetch,
    initialRetryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...options,
  });
}

/** Reads every event of a stream and its final completion. */
export async function collect(
  stream: AsyncIterable<ChatStreamEvent> & { finalCompletion(): Promise<ChatCompletion> },
): Promise<{ events: ChatStreamEvent[]; completion: ChatCompletion }> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, completion: await stream.finalCompletion() };
}

/** The rejection of a promise (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection, but the promise resolved");
}

/** Asserts that the events, concatenated per choice and tool call, rebuild `completion`. */
export function expectEventsToRebuild(
  events: readonly ChatStreamEvent[],
  completion: ChatCompletion,
): void {
  for (const choice of completion.choices) {
    const mine = events.filter((event) => event.choiceIndex === choice.index);
    const text = mine.flatMap((event) => (event.type === "text-delta" ? [event.delta] : []));
    expect(text.join("")).toBe(choice.message.content ?? "");
    const reasoning = mine.flatMap((event) =>
      event.type === "reasoning-delta" ? [event.delta] : [],
    );
    expect(reasoning.join("")).toBe(choice.message.reasoning ?? "");
    const calls = new Map<number, { id: string; name: string; parts: string[] }>();
    for (const event of mine) {
      if (event.type !== "tool-call-delta") continue;
      const call = calls.get(event.toolCallIndex);
      if (call) {
        expect(event.id).toBe(call.id);
        expect(event.name).toBe(call.name);
        call.parts.push(event.argumentsDelta);
      } else {
        calls.set(event.toolCallIndex, {
          id: event.id,
          name: event.name,
          parts: [event.argumentsDelta],
        });
      }
    }
    const rebuilt = [...calls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, call]) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.parts.join("") },
      }));
    expect(rebuilt).toEqual(choice.message.tool_calls ?? []);
    const finishes = mine.filter((event) => event.type === "finish");
    expect(finishes).toHaveLength(1);
    expect(finishes[0]).toMatchObject({ finishReason: choice.finish_reason });
  }
  const finishes = events.filter((event) => event.type === "finish");
  expect(events.at(-1)?.type).toBe("finish");
  expect(finishes.at(-1)).toMatchObject({ usage: completion.usage });
  expect(finishes.slice(0, -1).every((event) => event.usage === undefined)).toBe(true);
}
