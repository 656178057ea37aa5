import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import { ReasonerClient } from "../../../src/clients/reasoner/reasoner-client.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import type { ReasonerSimulator } from "../../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../../src/simulators/reasoner/start-reasoner-simulator.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("test");
afterEach(() => exporter.reset());

const prompt = "Cancel order o-1842 for Ada Lovelace";
const answer = "Order o-1842 is cancelled.";
const secret = "sk-live-4f9a8b7c6d5e4f3a2b1c";

const cancelOrder = defineTool({
  name: "cancel_order",
  description: "Cancels an order.",
  parameters: z.object({ id: z.string(), token: z.string() }),
  needsApproval: true,
  execute: ({ id }) => ({ cancelled: id }),
});
const brokenTool = defineTool({
  name: "broken",
  description: "Always fails.",
  parameters: z.object({}),
  execute: () => {
    throw new Error("the order service is down");
  },
});

function script() {
  return new ScriptedModel([
    {
      toolCalls: [
        { name: "cancel_order", id: "call_cancel", arguments: { id: "o-1842", token: secret } },
        { name: "broken", id: "call_broken" },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
    },
    { text: answer, usage: { prompt_tokens: 200, completion_tokens: 12, total_tokens: 212 } },
  ]);
}

function agent(recordContent?: boolean) {
  return new Agent({
    model: script(),
    tools: [cancelOrder, brokenTool],
    approver: new ScriptedApprover(["approve"]),
    requestOptions: { model: "reasoner-large" },
    tracing: {
      tracer,
      providerName: "reasoner",
      agentName: "order-desk",
      ...(recordContent !== undefined ? { recordContent } : {}),
    },
  });
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const everything = (spans: ReadableSpan[]) =>
  JSON.stringify(
    spans.map((span) => ({ name: span.name, attributes: span.attributes, status: span.status })),
  );

describe("tracing with OpenTelemetry", () => {
  it("emits GenAI spans: invoke_agent, chat per model call, execute_tool per call, await_approval per wait", async () => {
    const result = await agent().run(prompt);
    expect(result.status).toBe("completed");
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).toEqual([
      "await_approval cancel_order",
      "chat reasoner-large",
      "chat reasoner-large",
      "execute_tool broken",
      "execute_tool cancel_order",
      "invoke_agent order-desk",
    ]);
    const [root] = named(spans, "invoke_agent order-desk");
    expect(root?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "order-desk",
      "gen_ai.usage.input_tokens": 320,
      "gen_ai.usage.output_tokens": 42,
      "switchyard.run.status": "completed",
    });
    const rootId = root!.spanContext().spanId;
    const chats = named(spans, "chat reasoner-large");
    expect(chats.map((span) => span.attributes)).toEqual([
      expect.objectContaining({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "reasoner",
        "gen_ai.request.model": "reasoner-large",
        "gen_ai.response.finish_reasons": ["tool_calls"],
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30,
      }),
      expect.objectContaining({
        "gen_ai.response.finish_reasons": ["stop"],
        "gen_ai.usage.input_tokens": 200,
        "gen_ai.usage.output_tokens": 12,
      }),
    ]);
    const [cancel] = named(spans, "execute_tool cancel_order");
    expect(cancel?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "cancel_order",
      "gen_ai.tool.call.id": "call_cancel",
      "gen_ai.tool.type": "function",
      "switchyard.tool_call.status": "succeeded",
    });
    const [broken] = named(spans, "execute_tool broken");
    expect(broken?.status.code).toBe(SpanStatusCode.ERROR);
    expect(broken?.attributes).toMatchObject({
      "error.type": "failed",
      "gen_ai.tool.call.id": "call_broken",
    });
    const [approval] = named(spans, "await_approval cancel_order");
    expect(approval?.attributes).toMatchObject({
      "gen_ai.tool.call.id": "call_cancel",
      "switchyard.approval.outcome": "approved",
    });
    // Chats and tools hang under the run; the approval wait under its tool call.
    for (const span of [...chats, cancel!, broken!]) {
      expect(span.parentSpanContext?.spanId).toBe(rootId);
    }
    expect(approval?.parentSpanContext?.spanId).toBe(cancel!.spanContext().spanId);
  });

  it("records no content by default, and never a secret", async () => {
    await agent().run(prompt);
    const recorded = everything(exporter.getFinishedSpans());
    expect(recorded).not.toContain("Ada Lovelace");
    expect(recorded).not.toContain("o-1842");
    expect(recorded).not.toContain(answer);
    expect(recorded).not.toContain(secret);
    expect(recorded).not.toContain("gen_ai.input.messages");
    expect(recorded).not.toContain("gen_ai.tool.call.arguments");
  });

  it("records messages, arguments and results with recordContent, secrets redacted", async () => {
    await agent(true).run(prompt);
    const spans = exporter.getFinishedSpans();
    const recorded = everything(spans);
    expect(recorded).toContain("Ada Lovelace");
    expect(recorded).toContain(answer);
    expect(recorded).not.toContain(secret);
    const [cancel] = named(spans, "execute_tool cancel_order");
    const args = JSON.parse(String(cancel?.attributes["gen_ai.tool.call.arguments"]));
    expect(args).toEqual({ id: "o-1842", token: "[redacted]" });
    expect(String(cancel?.attributes["gen_ai.tool.call.result"])).toContain("o-1842");
    const [firstChat] = named(spans, "chat reasoner-large");
    const input = JSON.parse(String(firstChat?.attributes["gen_ai.input.messages"]));
    expect(input).toEqual([{ role: "user", content: prompt }]);
  });

  it("redacts the agent's registered secrets from recorded content", async () => {
    const note = "internal-note-7f3e9a1c";
    await new Agent({
      model: new ScriptedModel([{ text: `Noted ${note}.` }]),
      secrets: [note],
      tracing: { tracer, recordContent: true },
    }).run(`Remember ${note}`);
    const recorded = everything(exporter.getFinishedSpans());
    expect(recorded).toContain("Remember [redacted]");
    expect(recorded).not.toContain(note);
  });

  it("marks a failed run's span as an error", async () => {
    const failing = new Agent({
      model: new ScriptedModel([{ error: new Error("service unavailable") }]),
      tracing: { tracer },
    });
    const result = await failing.run("hi");
    expect(result.status).toBe("failed");
    const spans = exporter.getFinishedSpans();
    const [root] = named(spans, "invoke_agent switchyard");
    expect(root?.status).toMatchObject({
      code: SpanStatusCode.ERROR,
      message: "service unavailable",
    });
    expect(named(spans, "chat")[0]?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("rejects a tracing option it cannot use", () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ model, tracing: { tracer: {} as never } })).toThrow(
      ConfigurationError,
    );
    expect(() => new Agent({ model, tracing: "yes" as never })).toThrow(
      /tracing must be true, false/,
    );
  });
});

describe("tracing: true, against the reasoner simulator", () => {
  let simulator: ReasonerSimulator;
  beforeAll(async () => {
    simulator = await startReasonerSimulator({ scenario: () => "pong" });
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    trace.disable();
    await simulator.close();
  });

  it("uses the global tracer provider; streamed calls are chat spans; the API key never shows", async () => {
    const model = new ReasonerClient({
      url: simulator.url,
      apiKey: simulator.apiKey,
      model: "reasoner-small",
    });
    const stream = new Agent({
      model,
      tracing: true,
      requestOptions: { model: "reasoner-small" },
    }).stream("ping");
    for await (const _event of stream) {
      // read the events, as an application would
    }
    expect((await stream.result).output).toBe("pong");
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name).sort()).toEqual([
      "chat reasoner-small",
      "invoke_agent switchyard",
    ]);
    const [chat] = named(spans, "chat reasoner-small");
    expect(chat?.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    expect(chat?.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    expect(everything(spans)).not.toContain(simulator.apiKey);
  });
});

describe("loading @opentelemetry/api", () => {
  const run = promisify(execFile);
  const probe = (body: string) =>
    run(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const { Agent } = await import("./src/index.ts");
const { ScriptedModel } = await import("./src/testing/index.ts");
${body}
console.log(JSON.stringify(Object.keys(require.cache).some((path) => path.includes("@opentelemetry"))));`,
      ],
      { cwd: process.cwd() },
    ).then(({ stdout }) => JSON.parse(stdout.trim().split("\n").at(-1)!) as boolean);

  it("happens only when a run is traced, not on import", async () => {
    expect(
      await probe("await new Agent({ model: new ScriptedModel([{ text: 'hi' }]) }).run('hi');"),
    ).toBe(false);
    expect(
      await probe(
        "await new Agent({ model: new ScriptedModel([{ text: 'hi' }]), tracing: true }).run('hi');",
      ),
    ).toBe(true);
  });
});
