import type { BaseEvent, Message } from "@ag-ui/client";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { aiSdkModel } from "switchyard-agents/ai-sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AgUiTestServer,
  approve,
  clientFor,
  deny,
  postRun,
  runClient,
  startAgUiServer,
} from "./ag-ui-server.js";

let server: AgUiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const deleting = (ids: string[]) => ({
  toolCalls: [{ name: "delete_records", arguments: { ids } }],
});

/** Every tool call of the client's messages, with its arguments parsed (throws on any that are not JSON). */
function toolCallsOf(messages: readonly Message[]) {
  return messages.flatMap((message) =>
    message.role === "assistant"
      ? (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: JSON.parse(call.function.arguments) as unknown,
        }))
      : [],
  );
}

function startsOf(events: readonly BaseEvent[]): string[] {
  return events
    .filter((event) => event.type === "TOOL_CALL_START")
    .map((event) => (event as BaseEvent & { toolCallId: string }).toolCallId);
}

describe("an AG-UI thread, as chat UIs use it with the official client", () => {
  it("announces each tool call once per thread: the client's messages hold valid arguments after any number of approvals, and the next message continues the conversation", async () => {
    server = await startAgUiServer([
      deleting(["rec_a"]),
      deleting(["rec_b"]),
      { text: "Deleted rec_a and rec_b." },
      (request) => ({
        text: `You asked me: ${request.messages.find((message) => message.role === "user")?.content}`,
      }),
      deleting(["rec_c"]),
      { text: "Deleted rec_c too." },
    ]);
    const client = clientFor(server.url);
    const runs = [await runClient(client, { message: "Delete rec_a, then rec_b" })];
    runs.push(await runClient(client, { resume: [approve(runs[0]!.interrupts[0]!)] }));
    runs.push(await runClient(client, { resume: [approve(runs[1]!.interrupts[0]!)] }));
    runs.push(await runClient(client, { message: "What did I ask you first?" }));
    runs.push(await runClient(client, { message: "Now delete rec_c" }));
    runs.push(await runClient(client, { resume: [approve(runs[4]!.interrupts[0]!)] }));

    expect(runs.map((run) => run.error)).toEqual(runs.map(() => undefined));
    expect(server.runs).toEqual([{ ids: ["rec_a"] }, { ids: ["rec_b"] }, { ids: ["rec_c"] }]);
    // Each call started once in the whole thread; the resumed runs sent only results.
    const starts = runs.flatMap((run) => startsOf(run.events));
    expect(new Set(starts).size).toBe(3);
    expect(starts).toHaveLength(3);
    expect(startsOf(runs[1]!.events)).toEqual([startsOf(runs[1]!.events)[0]]);
    expect(runs[1]!.types).toContain("TOOL_CALL_RESULT");
    // The client's own message list: three calls, each with whole JSON arguments.
    expect(toolCallsOf(client.messages).map((call) => call.arguments)).toEqual([
      { ids: ["rec_a"] },
      { ids: ["rec_b"] },
      { ids: ["rec_c"] },
    ]);
    // The server held the thread: the fourth model call saw the first message.
    expect(String(client.messages.at(-1)?.content)).toContain("Deleted rec_c too.");
    const recall = client.messages.findLast(
      (message) => message.role === "assistant" && String(message.content).startsWith("You asked"),
    );
    expect(recall?.content).toBe("You asked me: Delete rec_a, then rec_b");
    const fifth = server.model.requests[4]?.messages ?? [];
    expect(fifth.filter((message) => message.role === "tool")).toHaveLength(2);
  });

  it("streams a gated call's arguments as the call will run, whatever pieces the provider streamed before its final word", async () => {
    const parts = (ids: string[], stale: string[]): LanguageModelV3StreamPart[] => [
      { type: "stream-start", warnings: [] },
      { type: "tool-input-start", id: "call_1", toolName: "delete_records" },
      { type: "tool-input-delta", id: "call_1", delta: `{"ids":${JSON.stringify(stale)}` },
      { type: "tool-input-delta", id: "call_1", delta: "}" },
      { type: "tool-input-end", id: "call_1" },
      {
        type: "tool-call",
        toolCallId: "call_1",
        toolName: "delete_records",
        input: JSON.stringify({ ids, note: "dropped by the schema" }),
      },
      {
        type: "finish",
        finishReason: { unified: "tool-calls", raw: undefined },
        usage: {
          inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 5, text: 5, reasoning: undefined },
        },
      },
    ];
    let calls = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        calls += 1;
        return {
          stream: convertArrayToReadableStream(
            calls === 1
              ? parts(["rec_all"], ["rec_stale"])
              : [
                  { type: "stream-start", warnings: [] },
                  { type: "text-start", id: "t" },
                  { type: "text-delta", id: "t", delta: "Done." },
                  { type: "text-end", id: "t" },
                  {
                    type: "finish",
                    finishReason: { unified: "stop", raw: undefined },
                    usage: {
                      inputTokens: {
                        total: 5,
                        noCache: 5,
                        cacheRead: undefined,
                        cacheWrite: undefined,
                      },
                      outputTokens: { total: 1, text: 1, reasoning: undefined },
                    },
                  },
                ],
          ),
        };
      },
    });
    server = await startAgUiServer([], { agentOptions: { model: aiSdkModel(model) } });
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete everything" });

    expect(first.error).toBeUndefined();
    const [interrupt] = first.interrupts;
    const shown = (interrupt!.metadata as { switchyard: { arguments: unknown } }).switchyard
      .arguments;
    expect(shown).toEqual({ ids: ["rec_all"] });
    const streamed = first.events
      .filter((event) => event.type === "TOOL_CALL_ARGS")
      .map((event) => (event as BaseEvent & { delta: string }).delta)
      .join("");
    expect(JSON.parse(streamed)).toEqual(shown);
    expect(toolCallsOf(client.messages).map((call) => call.arguments)).toEqual([shown]);

    const second = await runClient(client, { resume: [approve(interrupt!)] });
    expect(second.error).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_all"] }]);
    expect(toolCallsOf(client.messages).map((call) => call.arguments)).toEqual([shown]);
  });

  it("names the turn that asks in each interrupt: the user message of that turn, cut and without secrets, never the thread's first", async () => {
    const secret = "acct-key-7Qw9Lm2Zx4";
    server = await startAgUiServer(
      [
        { text: "Hello." },
        deleting(["rec_a"]),
        deleting(["rec_z"]),
        { text: "Deleted rec_a and rec_z." },
        deleting(["rec_b"]),
        { text: "Deleted rec_b." },
      ],
      { agentOptions: { secrets: [secret] } },
    );
    const client = clientFor(server.url);
    expect((await runClient(client, { message: "Hi there" })).error).toBeUndefined();
    const second = await runClient(client, { message: `Delete rec_a, my key is ${secret}` });
    const [asked] = second.interrupts;
    expect(asked?.metadata?.switchyard).toMatchObject({
      task: "Delete rec_a, my key is [redacted]",
    });
    expect(JSON.stringify(second.events)).not.toContain(secret);
    // The run that goes on after the answer asks again: still turn 2's question.
    const resumed = await runClient(client, { resume: [approve(asked!)] });
    const [askedAgain] = resumed.interrupts;
    expect(askedAgain?.metadata?.switchyard).toMatchObject({
      tool: "delete_records",
      arguments: { ids: ["rec_z"] },
      task: "Delete rec_a, my key is [redacted]",
    });
    expect((await runClient(client, { resume: [approve(askedAgain!)] })).error).toBeUndefined();
    const long = `Now delete rec_b. ${"Be careful. ".repeat(30)}`;
    const third = await runClient(client, { message: long });
    const task = (third.interrupts[0]?.metadata?.switchyard as { task?: string } | undefined)?.task;
    expect(task).toBe(`${long.trim().slice(0, 199)}…`);
    expect(server.runs).toEqual([{ ids: ["rec_a"] }, { ids: ["rec_z"] }]);
  });

  it("refuses a new message while the thread waits for an answer, naming the open question; answering it lets the thread go on", async () => {
    server = await startAgUiServer([deleting(["rec_a"]), { text: "Kept rec_a." }, { text: "Hi!" }]);
    const client = clientFor(server.url);
    const first = await runClient(client, { message: "Delete rec_a" });
    const [interrupt] = first.interrupts;

    const blocked = await postRun(server.url, {
      threadId: client.threadId,
      messages: [{ id: "m2", role: "user", content: "Hello?" }],
    });
    expect(blocked.error?.code).toBe("interrupt_open");
    expect(blocked.error?.message).toContain(interrupt!.id);
    expect(server.model.requests).toHaveLength(1);

    expect((await runClient(client, { resume: [deny(interrupt!)] })).error).toBeUndefined();
    const next = await runClient(client, { message: "Hello?" });
    expect(next.error).toBeUndefined();
    expect(client.messages.at(-1)?.content).toBe("Hi!");
    expect(server.runs).toEqual([]);
  });

  it("takes one message at a time: a message sent while the previous one is answered is refused thread_busy", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked!: () => void;
    const modelAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    server = await startAgUiServer([
      async () => {
        asked();
        await held;
        return { text: "First answer." };
      },
      { text: "Second answer." },
    ]);
    const client = clientFor(server.url);
    const first = runClient(client, { message: "First" });
    await modelAsked;
    const busy = await postRun(server.url, {
      threadId: client.threadId,
      messages: [{ id: "m2", role: "user", content: "Second" }],
    });
    expect(busy.error?.code).toBe("thread_busy");
    release();
    expect((await first).error).toBeUndefined();
    const second = await runClient(client, { message: "Second" });
    expect(second.error).toBeUndefined();
    expect(client.messages.at(-1)?.content).toBe("Second answer.");
    expect(server.model.requests).toHaveLength(2);
  });
});
