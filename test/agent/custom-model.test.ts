import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, defineTool } from "switchyard-agents";
import type {
  Model,
  ModelCallOptions,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelStream,
  ModelStreamEvent,
} from "switchyard-agents/model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

// A model for a provider that does not speak chat completions: a
// messages API in the style of Anthropic's (system apart, content blocks,
// `tool_use` / `tool_result`, `input_tokens`). Written as an application
// would, from the agent's own protocol only: nothing of the reasoner client.

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string };
interface ProviderMessage {
  role: "user" | "assistant";
  content: Block[];
}
interface ProviderRequest {
  system?: string;
  messages: ProviderMessage[];
  tools?: Array<{ name: string; description: string; input_schema: unknown }>;
  max_tokens: number;
}
interface ProviderAnswer {
  content: Block[];
  stop_reason: "end_turn" | "tool_use";
  usage: { input_tokens: number; output_tokens: number };
}

class MessagesApiModel implements Model {
  constructor(private readonly url: string) {}

  async complete(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const response = await fetch(this.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(toProvider(request)),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!response.ok) throw new Error(`The provider answered ${response.status}`);
    const answer = (await response.json()) as ProviderAnswer;
    const text = answer.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
    const calls = answer.content.flatMap((block) =>
      block.type === "tool_use"
        ? [
            {
              id: block.id,
              type: "function" as const,
              function: { name: block.name, arguments: JSON.stringify(block.input) },
            },
          ]
        : [],
    );
    const { input_tokens: prompt, output_tokens: completion } = answer.usage;
    return {
      choices: [
        {
          message: {
            role: "assistant",
            content: text.length > 0 ? text.join("") : null,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          finish_reason: answer.stop_reason === "tool_use" ? "tool_calls" : "stop",
        },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
      },
    };
  }

  stream(request: ModelRequest, options?: ModelCallOptions): ModelStream {
    const response = this.complete(request, options);
    response.catch(() => {});
    return {
      finalCompletion: () => response,
      async *[Symbol.asyncIterator](): AsyncGenerator<ModelStreamEvent> {
        const { choices, usage } = await response;
        const content = choices[0]?.message.content;
        if (content) yield { type: "text-delta", choiceIndex: 0, delta: content };
        yield { type: "finish", choiceIndex: 0, finishReason: "stop", usage };
      },
    };
  }
}

function toProvider(request: ModelRequest): ProviderRequest {
  const system = request.messages.find((message) => message.role === "system")?.content;
  const messages: ProviderMessage[] = [];
  const add = (role: ProviderMessage["role"], block: Block) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const message of request.messages as ModelMessage[]) {
    if (message.role === "user") add("user", { type: "text", text: message.content });
    if (message.role === "tool") {
      add("user", {
        type: "tool_result",
        tool_use_id: message.tool_call_id,
        content: message.content,
      });
    }
    if (message.role === "assistant") {
      if (message.content) add("assistant", { type: "text", text: message.content });
      for (const call of message.tool_calls ?? []) {
        add("assistant", {
          type: "tool_use",
          id: call.id,
          name: call.function.name,
          input: JSON.parse(call.function.arguments),
        });
      }
    }
  }
  return {
    ...(system !== undefined ? { system } : {}),
    messages,
    ...(request.tools
      ? {
          tools: request.tools.map(({ function: tool }) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.parameters,
          })),
        }
      : {}),
    max_tokens: request.max_tokens ?? 1024,
  };
}

describe("a user-written Model for another provider", () => {
  const received: ProviderRequest[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // The provider: asks for the weather tool once, then answers with its result.
    server = createServer(async (request, response) => {
      let body = "";
      for await (const chunk of request) body += chunk;
      const parsed = JSON.parse(body) as ProviderRequest;
      received.push(parsed);
      const result = parsed.messages
        .flatMap((message) => message.content)
        .find((block) => block.type === "tool_result");
      const answer: ProviderAnswer = result
        ? {
            content: [{ type: "text", text: `It is ${result.content} in Lyon.` }],
            stop_reason: "end_turn",
            usage: { input_tokens: 30, output_tokens: 8 },
          }
        : {
            content: [
              { type: "text", text: "Let me look." },
              { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Lyon" } },
            ],
            stop_reason: "tool_use",
            usage: { input_tokens: 20, output_tokens: 5 },
          };
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(answer));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const weather = defineTool({
    name: "get_weather",
    description: "Current weather of a city.",
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => (city === "Lyon" ? "sunny" : "unknown"),
  });

  it("runs an agent: tool calls, tool results and usage go through the agent's protocol", async () => {
    received.length = 0;
    const agent = new Agent({
      model: new MessagesApiModel(url),
      tools: [weather],
      instructions: "Answer briefly.",
      requestOptions: { max_tokens: 200 },
    });

    const result = await agent.run("Weather in Lyon?");

    expect(result.status).toBe("completed");
    expect(result.output).toBe("It is sunny in Lyon.");
    expect(result.usage).toEqual({ promptTokens: 50, completionTokens: 13, totalTokens: 63 });
    expect(result.steps[0]?.toolCalls).toEqual([
      expect.objectContaining({
        status: "succeeded",
        toolName: "get_weather",
        toolCallId: "toolu_1",
        arguments: { city: "Lyon" },
      }),
    ]);
    expect(received[0]).toMatchObject({
      system: "Answer briefly.",
      max_tokens: 200,
      tools: [expect.objectContaining({ name: "get_weather" })],
    });
    expect(received[1]?.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "sunny" }],
    });
  });

  it("streams the same run", async () => {
    const agent = new Agent({ model: new MessagesApiModel(url), tools: [weather] });
    const stream = agent.stream("Weather in Lyon?");
    const deltas: string[] = [];
    for await (const event of stream) if (event.type === "text-delta") deltas.push(event.delta);

    const result = await stream.result;
    expect(result.status).toBe("completed");
    expect(deltas).toEqual(["Let me look.", "It is sunny in Lyon."]);
  });
});
