import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import {
  ReasonerClient,
  type ReasonerClientOptions,
} from "../../../src/clients/reasoner/reasoner-client.js";

// A chat span knows the model and the provider even when they are set on
// the ReasonerClient rather than per request: the model the client sends,
// and the provider of its address's host (the OpenTelemetry GenAI
// conventions' well-known names) or of its routing.

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
}).getTracer("test");
afterEach(() => exporter.reset());

const answer = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1760000000,
  model: "served-model",
  choices: [{ index: 0, message: { role: "assistant", content: "pong" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
};

/** Answers every request with `answer`, streamed or whole as asked; records the models sent. */
function fakeProvider() {
  const models: unknown[] = [];
  const fetch = (async (_input: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as { stream?: boolean; model?: unknown };
    models.push(body.model);
    if (!body.stream) {
      return new Response(JSON.stringify(answer), {
        headers: { "content-type": "application/json" },
      });
    }
    const chunk = {
      ...answer,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { role: "assistant", content: "pong" }, finish_reason: "stop" }],
    };
    return new Response(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`, {
      headers: { "content-type": "text/event-stream" },
    });
  }) as typeof globalThis.fetch;
  return { fetch, models };
}

async function spansOf(options: Omit<ReasonerClientOptions, "apiKey" | "fetch">) {
  const provider = fakeProvider();
  const model = new ReasonerClient({
    apiKey: "sk-trace-test-9d8c7b6a",
    fetch: provider.fetch,
    ...options,
  });
  const result = await new Agent({ model, tracing: { tracer } }).run("ping");
  expect(result.status).toBe("completed");
  const spans = exporter.getFinishedSpans();
  const chat = spans.find((span) => span.attributes["gen_ai.operation.name"] === "chat");
  const agent = spans.find((span) => span.attributes["gen_ai.operation.name"] === "invoke_agent");
  return { chat: chat as ReadableSpan, agent: agent as ReadableSpan, models: provider.models };
}

describe("chat spans of a ReasonerClient", () => {
  it("carry the client's model as gen_ai.request.model and in the span name", async () => {
    const { chat, models } = await spansOf({
      url: "https://api.openai.com/v1/chat/completions",
      model: "gpt-4.1-mini",
    });
    expect(models).toEqual(["gpt-4.1-mini"]);
    expect(chat.name).toBe("chat gpt-4.1-mini");
    expect(chat.attributes["gen_ai.request.model"]).toBe("gpt-4.1-mini");
    expect(chat.attributes["gen_ai.response.model"]).toBe("served-model");
  });

  it.each([
    ["https://api.openai.com/v1/chat/completions", "openai"],
    ["https://openrouter.ai/api/v1/chat/completions", "openrouter"],
    ["https://api.anthropic.com/v1/chat/completions", "anthropic"],
    ["https://api.groq.com/openai/v1/chat/completions", "groq"],
    ["https://api.mistral.ai/v1/chat/completions", "mistral_ai"],
    ["https://api.deepseek.com/chat/completions", "deepseek"],
    ["https://api.x.ai/v1/chat/completions", "x_ai"],
    ["https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", "gcp.gemini"],
    [
      "https://my-resource.openai.azure.com/openai/deployments/d/chat/completions",
      "azure.ai.openai",
    ],
  ])("name the provider of %s as %s", async (url, name) => {
    const { chat, agent } = await spansOf({ url, model: "some-model" });
    expect(chat.attributes["gen_ai.provider.name"]).toBe(name);
    expect(agent.attributes["gen_ai.provider.name"]).toBe(name);
  });

  it("name the first provider of the client's routing on another host", async () => {
    const { chat } = await spansOf({
      url: "https://reasoner.example.com/v1/chat/completions",
      provider: { order: ["VendorB", "vendorC"] },
    });
    expect(chat.attributes["gen_ai.provider.name"]).toBe("vendorb");
  });

  it("say unknown when neither the host nor a routing names one", async () => {
    const { chat } = await spansOf({ url: "https://reasoner.example.com/v1/chat/completions" });
    expect(chat.attributes["gen_ai.provider.name"]).toBe("unknown");
    expect(chat.attributes["gen_ai.request.model"]).toBeUndefined();
    expect(chat.name).toBe("chat served-model");
  });
});
