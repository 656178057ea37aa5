import { createParser } from "eventsource-parser";
import type { ReasonerSimulator } from "../../src/simulators/reasoner/reasoner-simulator-options.js";

/** A tool definition as a client sends it. */
export function tool(name: string, properties: Record<string, unknown> = {}) {
  return {
    type: "function" as const,
    function: {
      name,
      description: `The ${name} tool.`,
      parameters: { type: "object", properties, required: [] },
    },
  };
}

export function tools(...names: string[]) {
  return names.map((name) => tool(name));
}

/** One tool call the model made earlier and the result the agent sent back. */
export interface PastStep {
  name: string;
  args: unknown;
  result: unknown;
}

/** A conversation: system, user task, then an assistant call and a tool message per step. */
export function conversation(task: string, steps: PastStep[] = []) {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: "You are an operations agent. Use the tools." },
    { role: "user", content: task },
  ];
  for (const [index, step] of steps.entries()) {
    const id = `call_${index}`;
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: step.name, arguments: JSON.stringify(step.args) },
        },
      ],
    });
    messages.push({ role: "tool", tool_call_id: id, content: JSON.stringify(step.result) });
  }
  return messages;
}

export function post(
  simulator: ReasonerSimulator,
  body: unknown,
  options: { headers?: Record<string, string>; url?: string; method?: string } = {},
): Promise<Response> {
  return fetch(options.url ?? simulator.url, {
    method: options.method ?? "POST",
    headers: {
      authorization: `Bearer ${simulator.apiKey}`,
      "content-type": "application/json",
      ...options.headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export interface AnswerMessage {
  content: string | null;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
}

/** Posts a non-streaming request and returns the first choice's message. */
export async function nextMessage(
  simulator: ReasonerSimulator,
  body: Record<string, unknown>,
): Promise<AnswerMessage> {
  const response = await post(simulator, body);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`status ${response.status}: ${text}`);
  return (JSON.parse(text) as { choices: Array<{ message: AnswerMessage }> }).choices[0]!.message;
}

/** The single tool call of a message, with its arguments parsed. */
export function onlyCall(message: AnswerMessage): { name: string; args: Record<string, unknown> } {
  const calls = message.tool_calls ?? [];
  if (calls.length !== 1) {
    throw new Error(`expected one tool call, got ${calls.length}: ${JSON.stringify(message)}`);
  }
  return {
    name: calls[0]!.function.name,
    args: JSON.parse(calls[0]!.function.arguments) as Record<string, unknown>,
  };
}

export interface ReadStream {
  events: Array<{ event: string | undefined; data: string }>;
  comments: string[];
  /** Chunk objects of the data events other than [DONE]. */
  chunks: Array<Record<string, unknown>>;
  raw: string;
  /** Set when reading the body failed (a cut connection). */
  error?: unknown;
}

/** Reads a whole SSE body with eventsource-parser. */
export async function readStream(response: Response): Promise<ReadStream> {
  const read: ReadStream = { events: [], comments: [], chunks: [], raw: "" };
  const parser = createParser({
    onEvent: (event) => {
      read.events.push({ event: event.event, data: event.data });
      if (event.data !== "[DONE]")
        read.chunks.push(JSON.parse(event.data) as Record<string, unknown>);
    },
    onComment: (comment) => read.comments.push(comment),
  });
  const decoder = new TextDecoder();
  try {
    for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(piece, { stream: true });
      read.raw += text;
      parser.feed(text);
    }
  } catch (error) {
    read.error = error;
  }
  return read;
}

interface Delta {
  role?: string;
  content?: string;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: Array<{
    index?: number;
    id?: string;
    type?: string;
    function?: { name?: string; arguments?: string };
  }>;
}

/** Assembles chunks the way a tolerant client does (index, or id when index is missing). */
export function assemble(chunks: Array<Record<string, unknown>>) {
  let content = "";
  let reasoning = "";
  let finishReason: string | undefined;
  let usage: unknown;
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    const choices = (chunk.choices ?? []) as Array<{ delta: Delta; finish_reason: string | null }>;
    for (const choice of choices) {
      const delta = choice.delta;
      content += delta.content ?? "";
      reasoning += delta.reasoning_content ?? delta.reasoning ?? "";
      for (const call of delta.tool_calls ?? []) {
        let target =
          call.index !== undefined
            ? calls[call.index]
            : calls.find((existing) => existing.id === call.id);
        if (!target) {
          target = { id: call.id ?? "", name: call.function?.name ?? "", arguments: "" };
          if (call.index !== undefined) calls[call.index] = target;
          else calls.push(target);
        }
        target.arguments += call.function?.arguments ?? "";
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  return { content, reasoning, calls, finishReason, usage };
}
