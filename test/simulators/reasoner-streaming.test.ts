import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type {
  ReasonerSimulator,
  ReasonerSimulatorOptions,
} from "../../src/simulators/reasoner/reasoner-simulator-options.js";
import type { ScriptedAnswer } from "../../src/simulators/reasoner/scripted-answer.js";
import { startReasonerSimulator } from "../../src/simulators/reasoner/start-reasoner-simulator.js";
import { assemble, post, readStream } from "./reasoner-test-helpers.js";

const running: ReasonerSimulator[] = [];
async function start(options: ReasonerSimulatorOptions) {
  const simulator = await startReasonerSimulator(options);
  running.push(simulator);
  return simulator;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((simulator) => simulator.close()));
});

const text = "Deleting the two callbacks on the retired host now, then I will report back.";
const firstArguments = {
  callback_ids: ["4f1c2a9e-0000-4000-8000-000000000001", "4f1c2a9e-0000-4000-8000-000000000002"],
};
const secondArguments = { message_type: "all", note: "second call" };
const scripted: ScriptedAnswer = {
  text,
  reasoning: "The task names a host; the list shows two callbacks there.",
  toolCalls: [
    { name: "delete_callbacks", arguments: firstArguments },
    { name: "list_callbacks", arguments: secondArguments },
  ],
};
const request = {
  messages: [{ role: "user", content: "clean up" }],
  stream: true,
  model: "vendorB/235b",
  extra_body: { provider: { order: ["vendor-z"] } },
};

async function streamed(
  options: ReasonerSimulatorOptions,
  body: Record<string, unknown> = request,
) {
  const simulator = await start({ scenario: () => scripted, ...options });
  const response = await post(simulator, body);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  return readStream(response);
}

type ToolDelta = {
  index?: number;
  id?: string;
  type?: string;
  function: { name?: string; arguments?: string };
};
function toolDeltas(chunks: Array<Record<string, unknown>>): ToolDelta[] {
  return chunks.flatMap((chunk) =>
    ((chunk.choices ?? []) as Array<{ delta: { tool_calls?: ToolDelta[] } }>).flatMap(
      (choice) => choice.delta.tool_calls ?? [],
    ),
  );
}

function expectSameAnswer(assembled: ReturnType<typeof assemble>) {
  expect(assembled.content).toBe(text);
  expect(assembled.finishReason).toBe("tool_calls");
  expect(assembled.calls.map((call) => call.name)).toEqual(["delete_callbacks", "list_callbacks"]);
  expect(JSON.parse(assembled.calls[0]!.arguments)).toEqual(firstArguments);
  expect(JSON.parse(assembled.calls[1]!.arguments)).toEqual(secondArguments);
  expect(assembled.calls[0]!.id).not.toBe(assembled.calls[1]!.id);
}

describe("reasoner simulator streaming", () => {
  it("streams like OpenAI by default: role first, split text and arguments, usage, [DONE]", async () => {
    const read = await streamed({});
    expect(read.error).toBeUndefined();
    expect(read.comments.map((comment) => comment.trim())).toContain("keep-alive");
    expect(read.events.at(-1)!.data).toBe("[DONE]");
    for (const chunk of read.chunks) {
      expect(chunk).toMatchObject({
        object: "chat.completion.chunk",
        model: "vendorB/235b",
        provider: "vendor-z",
      });
      expect(typeof chunk.created).toBe("number");
    }
    const first = read.chunks[0] as { choices: Array<{ delta: { role?: string } }> };
    expect(first.choices[0]!.delta.role).toBe("assistant");
    const contentChunks = read.chunks.filter(
      (chunk) => (chunk.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content,
    );
    expect(contentChunks.length).toBeGreaterThan(2);
    const deltas = toolDeltas(read.chunks);
    expect(deltas.length).toBeGreaterThan(6);
    const withId = deltas.filter((delta) => delta.id !== undefined);
    expect(withId).toHaveLength(2);
    expect(withId.every((delta) => delta.type === "function" && delta.function.name)).toBe(true);
    expect(deltas.every((delta) => typeof delta.index === "number")).toBe(true);
    const usageChunk = read.chunks.at(-1) as { choices: unknown[]; usage: Record<string, number> };
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage.total_tokens).toBe(
      usageChunk.usage.prompt_tokens! + usageChunk.usage.completion_tokens!,
    );
    expect(read.raw).not.toContain("\r\n");
    const assembled = assemble(read.chunks);
    expectSameAnswer(assembled);
    expect(assembled.reasoning).toBe("");
  });

  it("sends each tool call whole in one chunk with chunking 'whole'", async () => {
    const read = await streamed({ chunking: "whole" });
    const deltas = toolDeltas(read.chunks);
    expect(deltas).toHaveLength(2);
    expect(JSON.parse(deltas[0]!.function.arguments!)).toEqual(firstArguments);
    expectSameAnswer(assemble(read.chunks));
  });

  it("repeats id, type and name on every fragment without index with chunking 'repeated'", async () => {
    const read = await streamed({ chunking: "repeated" });
    const deltas = toolDeltas(read.chunks);
    expect(deltas.length).toBeGreaterThan(4);
    expect(
      deltas.every((delta) => delta.index === undefined && delta.id && delta.function.name),
    ).toBe(true);
    expectSameAnswer(assemble(read.chunks));
  });

  it("ends lines with CRLF with chunking 'crlf'", async () => {
    const read = await streamed({ chunking: "crlf" });
    expect(read.raw).toContain("\r\n\r\n");
    expect(read.raw.replaceAll("\r\n", "")).not.toContain("\n");
    expectSameAnswer(assemble(read.chunks));
  });

  it("streams reasoning_content (or reasoning) before the answer", async () => {
    for (const [chunking, field] of [
      ["reasoning", "reasoning_content"],
      ["reasoning-field", "reasoning"],
    ] as const) {
      const read = await streamed({ chunking });
      const deltas = read.chunks.flatMap((chunk) =>
        (chunk.choices as Array<{ delta: Record<string, unknown> }>).map((choice) => choice.delta),
      );
      const firstReasoning = deltas.findIndex((delta) => field in delta);
      const firstContent = deltas.findIndex(
        (delta) => typeof delta.content === "string" && delta.content !== "",
      );
      expect(firstReasoning).toBeGreaterThan(-1);
      expect(firstReasoning).toBeLessThan(firstContent);
      const assembled = assemble(read.chunks);
      expect(assembled.reasoning).toBe(scripted.reasoning);
      expectSameAnswer(assembled);
    }
  });

  it("puts usage on the finish chunk with chunking 'usage-on-finish'", async () => {
    const read = await streamed({ chunking: "usage-on-finish" });
    const last = read.chunks.at(-1) as {
      choices: Array<{ finish_reason: string }>;
      usage?: unknown;
    };
    expect(last.choices[0]!.finish_reason).toBe("tool_calls");
    expect(last.usage).toBeDefined();
    expect(read.chunks.filter((chunk) => chunk.usage !== undefined)).toHaveLength(1);
  });

  it("writes a few bytes at a time with chunking 'bytes', splitting UTF-8 characters", async () => {
    const simulator = await start({
      scenario: () => "héllo wörld ✓ naïve café",
      chunking: "bytes",
      chunkDelayMs: 1,
    });
    const reads = await new Promise<Buffer[]>((resolve, reject) => {
      const url = new URL(simulator.url);
      const outgoing = httpRequest(
        url,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${simulator.apiKey}`,
            "content-type": "application/json",
          },
        },
        (response) => {
          const pieces: Buffer[] = [];
          response.on("data", (piece: Buffer) => pieces.push(piece));
          response.on("end", () => resolve(pieces));
          response.on("error", reject);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(JSON.stringify({ ...request, messages: [{ role: "user", content: "hi" }] }));
    });
    const strict = new TextDecoder("utf-8", { fatal: true });
    const splitCharacter = reads.some((piece) => {
      try {
        strict.decode(piece);
        return false;
      } catch {
        return true;
      }
    });
    expect(splitCharacter).toBe(true);
    const whole = Buffer.concat(reads).toString("utf8");
    const read = await readStream(new Response(whole));
    expect(assemble(read.chunks).content).toBe("héllo wörld ✓ naïve café");
  });

  it("streams every choice when n > 1", async () => {
    const read = await streamed({}, { ...request, n: 2 });
    const finishes = read.chunks.flatMap((chunk) =>
      (chunk.choices as Array<{ index: number; finish_reason: string | null }>)
        .filter((choice) => choice.finish_reason)
        .map((choice) => choice.index),
    );
    expect(finishes).toEqual([0, 1]);
  });

  it("sends an `event: error` mid-stream and stops", async () => {
    const simulator = await start({ scenario: () => scripted });
    simulator.failNext({ midStreamError: "error-event" });
    const read = await readStream(await post(simulator, request));
    const errorEvent = read.events.find((event) => event.event === "error");
    expect(errorEvent).toBeDefined();
    expect(JSON.parse(errorEvent!.data).error.message).toContain("mid-stream");
    expect(read.events.some((event) => event.data === "[DONE]")).toBe(false);
    expect(assemble(read.chunks.filter((chunk) => !chunk.error)).finishReason).toBeUndefined();
    expect(read.chunks.length).toBeGreaterThan(1);
  });

  it("sends a data event with a top-level error object, then [DONE]", async () => {
    const simulator = await start({ scenario: () => scripted });
    simulator.failNext({
      midStreamError: "error-data",
      body: { error: { message: "overloaded", code: 529 } },
    });
    const read = await readStream(await post(simulator, request));
    const errorChunk = read.chunks.find((chunk) => chunk.error !== undefined);
    expect(errorChunk).toEqual({ error: { message: "overloaded", code: 529 } });
    expect(read.events.at(-1)!.data).toBe("[DONE]");
    expect(assemble(read.chunks).finishReason).toBeUndefined();
  });

  it("cuts the connection before the finish chunk", async () => {
    const simulator = await start({ scenario: () => scripted });
    simulator.failNext({ midStreamError: "cut" });
    const read = await readStream(await post(simulator, request));
    expect(read.error).toBeDefined();
    expect(read.chunks.length).toBeGreaterThan(0);
    expect(assemble(read.chunks).finishReason).toBeUndefined();
    const next = await readStream(await post(simulator, request));
    expect(next.error).toBeUndefined();
    expectSameAnswer(assemble(next.chunks));
  });

  it("streams a long answer of about the requested chunk count with the long-stream scenario", async () => {
    const simulator = await start({ scenario: "long-stream", longStreamChunks: 3000 });
    const tools = [
      { type: "function", function: { name: "ping", parameters: { type: "object" } } },
    ];
    const read = await readStream(
      await post(simulator, { messages: [{ role: "user", content: "go" }], tools, stream: true }),
    );
    expect(read.chunks.length).toBeGreaterThanOrEqual(3000);
    const assembled = assemble(read.chunks);
    expect(assembled.calls).toHaveLength(1);
    expect(assembled.calls[0]!.name).toBe("ping");
    expect(JSON.parse(assembled.calls[0]!.arguments)).toEqual({});
    expect(toolDeltas(read.chunks).length).toBeGreaterThanOrEqual(1500);
  });
});
