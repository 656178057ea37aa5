import type { ModelMessage, ModelToolDefinition } from "../src/agent/model-message.js";
import { postPooled, readPooledText } from "./pooled-post.js";
import { readSseRaw } from "./read-sse-raw.js";

/** Where the hand-written loop posts, and what it offers the model. */
export interface RawLoopOptions {
  url: string;
  apiKey: string;
  /** The same tool definitions the agent sends. */
  tools: readonly ModelToolDefinition[];
  /** Runs a tool by name with parsed arguments. */
  execute(name: string, args: unknown): Promise<unknown>;
  /** Streams each answer instead of asking for it whole. */
  stream: boolean;
  /**
   * `fetch`: the global fetch (the first floor). `pooled`: node:http over a
   * keep-alive Agent, the transport the library uses by default (the
   * second floor). @default "fetch"
   */
  transport?: "fetch" | "pooled" | undefined;
  maxSteps: number;
}

interface Completion {
  choices: { message: { content: string | null; tool_calls?: ToolCall[] } }[];
}

interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * The floor for an agent run: `fetch` (or a pooled `node:http` request)
 * and `JSON.parse` (or eventsource-parser for a stream) in a plain loop. Post the conversation,
 * parse the tool calls, run them, append their results, until the model
 * answers without tools. No validation, retries, timeouts, events,
 * redaction or logging. Returns the final text.
 */
export async function runRawAgentLoop(task: string, options: RawLoopOptions): Promise<string> {
  const messages: ModelMessage[] = [{ role: "user", content: task }];
  const headers = {
    authorization: `Bearer ${options.apiKey}`,
    "content-type": "application/json",
  };
  for (let step = 1; step <= options.maxSteps; step++) {
    const body = options.stream
      ? { messages, tools: options.tools, stream: true, stream_options: { include_usage: true } }
      : { messages, tools: options.tools };
    let content: string | null;
    let toolCalls: ToolCall[];
    let answer: { text?: string; stream?: AsyncIterable<Uint8Array> };
    if (options.transport === "pooled") {
      const incoming = await postPooled(options.url, headers, JSON.stringify(body));
      if (incoming.statusCode !== 200) {
        throw new Error(`${incoming.statusCode}: ${await readPooledText(incoming)}`);
      }
      answer = options.stream ? { stream: incoming } : { text: await readPooledText(incoming) };
    } else {
      const response = await fetch(options.url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
      answer = options.stream ? { stream: response.body! } : { text: await response.text() };
    }
    if (answer.stream) {
      const streamed = await readSseRaw(answer.stream);
      content = streamed.content;
      toolCalls = streamed.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
    } else {
      const completion = JSON.parse(answer.text ?? "") as Completion;
      const message = completion.choices[0]!.message;
      content = message.content;
      toolCalls = message.tool_calls ?? [];
    }
    if (toolCalls.length === 0) return content ?? "";
    messages.push({ role: "assistant", content, tool_calls: toolCalls });
    for (const call of toolCalls) {
      const args: unknown = JSON.parse(call.function.arguments || "{}");
      const result = await options.execute(call.function.name, args);
      messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  throw new Error(`the model still asked for tools after ${options.maxSteps} steps`);
}
