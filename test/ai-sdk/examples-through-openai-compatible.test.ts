import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { AgentEvent, RunResult } from "switchyard-agents";
import { RateLimitError } from "switchyard-agents";
import { aiSdkModel } from "switchyard-agents/ai-sdk";
import type { ExampleDefinition } from "switchyard-agents/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbackCleanup } from "../../examples/callback-cleanup.js";
import { customTool } from "../../examples/custom-tool.js";
import { docsEdit } from "../../examples/docs-edit.js";
import { orderReport } from "../../examples/order-report.js";
import { StreamError } from "../../src/clients/reasoner/stream-error.js";
import { BadRequestError } from "../../src/errors/api-error.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { type ExampleHarness, startExampleHarness } from "../examples/example-harness.js";

// The example agents, their model an AI SDK provider (openai-compatible)
// speaking real HTTP to the reasoning simulator, which plays each example.
let harness: ExampleHarness;
beforeAll(async () => {
  harness = await startExampleHarness("auto");
});
afterAll(() => harness.close());

function simulatorModel(options: Parameters<typeof aiSdkModel>[1] = {}) {
  const { reasoner } = harness.simulators;
  const provider = createOpenAICompatible({
    name: "simulator",
    baseURL: reasoner.url.replace(/\/chat\/completions$/, ""),
    apiKey: reasoner.apiKey,
    includeUsage: true,
  });
  return aiSdkModel(provider.chatModel("switchyard-sim"), options);
}

type Mode = "stream" | "complete";

async function runExample(
  example: ExampleDefinition,
  mode: Mode,
): Promise<{ result: RunResult; events: AgentEvent[] }> {
  const agent = example.createAgent({ ...harness.services, model: simulatorModel() });
  if (mode === "complete") return { result: await agent.run(example.defaultTask), events: [] };
  const events: AgentEvent[] = [];
  const stream = agent.stream(example.defaultTask);
  for await (const event of stream) events.push(event);
  return { result: await stream.result, events };
}

const hostOf = (url: string) => new URL(url).hostname;
const chatRequests = () =>
  harness.simulators.reasoner.requests.map((request) => request.body as Record<string, unknown>);

describe("callback-cleanup through @ai-sdk/openai-compatible", () => {
  it.each(["stream", "complete"] as const)(
    "deletes exactly the retired host's callbacks once the person approves (%s)",
    async (mode) => {
      harness.reset("approve");
      const { orders, messaging, reasoner } = harness.simulators;
      reasoner.requests.length = 0;
      const before = orders.callbacks();
      const retired = before.filter((callback) => hostOf(callback.url) === retiredCallbackHost);
      expect(retired.length).toBeGreaterThan(0);

      const { result, events } = await runExample(callbackCleanup, mode);

      expect(result.status).toBe("completed");
      expect(orders.callbacks().map((callback) => callback.id)).toEqual(
        before
          .filter((callback) => hostOf(callback.url) !== retiredCallbackHost)
          .map((callback) => callback.id),
      );
      expect(messaging.interactions()).toHaveLength(1);
      expect(result.output).toContain(`Deleted ${retired.length} callbacks`);
      expect(result.usage.totalTokens).toBeGreaterThan(0);
      // Every request went through the provider: streamed or not, the
      // example's two tools offered as JSON Schema functions.
      const requests = chatRequests();
      expect(requests.length).toBe(result.steps.length);
      for (const request of requests) {
        expect(request.stream === true).toBe(mode === "stream");
        expect(
          (request.tools as { function: { name: string } }[]).map((tool) => tool.function.name),
        ).toEqual(["list_callbacks", "delete_callbacks"]);
      }
      const deletion = result.steps
        .flatMap((step) => step.toolCalls)
        .find((call) => call.toolName === "delete_callbacks");
      expect(deletion?.status).toBe("succeeded");
      if (mode === "stream") {
        const types = new Set(events.map((event) => event.type));
        for (const type of ["text-delta", "tool-call-delta", "approval-request", "finish"]) {
          expect(types).toContain(type);
        }
      }
    },
  );

  it.each(["stream", "complete"] as const)(
    "deletes nothing and says why when the person denies (%s)",
    async (mode) => {
      harness.reset("deny");
      const { orders } = harness.simulators;
      const before = orders.callbacks();

      const { result } = await runExample(callbackCleanup, mode);

      expect(result.status).toBe("completed");
      expect(orders.callbacks()).toEqual(before);
      const deletion = result.steps
        .flatMap((step) => step.toolCalls)
        .find((call) => call.toolName === "delete_callbacks");
      expect(deletion?.status).toBe("refused");
      expect(deletion?.approval).toMatchObject({ outcome: "refused", code: "denied" });
      expect(result.output).toMatch(/Nothing was deleted/);
    },
  );
});

describe("the other examples through @ai-sdk/openai-compatible", () => {
  it("order-report counts every order by status, reading only (stream)", async () => {
    harness.reset("approve");
    const { orders } = harness.simulators;
    const counts = new Map<string, number>();
    for (const order of orders.orders()) {
      counts.set(order.status, (counts.get(order.status) ?? 0) + 1);
    }

    const { result } = await runExample(orderReport, "stream");

    expect(result.status).toBe("completed");
    expect(result.output).toContain(`There are ${orders.orders().length} orders in total.`);
    for (const [status, count] of counts) expect(result.output).toContain(`${status}: ${count}`);
  });

  it("custom-tool applies the discount once the person approves (complete)", async () => {
    harness.reset("approve");
    const { result } = await runExample(customTool, "complete");
    expect(result.status).toBe("completed");
    expect(result.output).toMatch(/^Applied the 15% discount/);
  });

  it("docs-edit leaves the page as it was when the person denies (stream)", async () => {
    harness.reset("deny");
    const { docs } = harness.simulators;
    const before = docs.files(docs.storefrontId);

    const { result } = await runExample(docsEdit, "stream");

    expect(result.status).toBe("completed");
    expect(docs.files(docs.storefrontId)).toEqual(before);
    expect(docs.pushes()).toHaveLength(0);
    expect(result.output).toMatch(/refused/);
  });
});

describe("the provider's HTTP failures, as Switchyard's errors", () => {
  const request = { messages: [{ role: "user" as const, content: "Say hello." }] };

  it("sends a 429 again, after the wait the service asked for, and answers", async () => {
    const { reasoner } = harness.simulators;
    reasoner.requests.length = 0;
    reasoner.failNext({ status: 429, headers: { "retry-after": "0" } });

    const answer = await simulatorModel({ initialRetryDelayMs: 1 }).complete(request);

    expect(answer.choices[0]?.message.content).toMatch(/reasoner simulator/);
    expect(reasoner.requests).toHaveLength(2);
  });

  it("gives up on a 429 with a RateLimitError once its retries are spent", async () => {
    const { reasoner } = harness.simulators;
    reasoner.requests.length = 0;
    reasoner.failNext({ status: 429, headers: { "retry-after": "0" }, times: 2 });

    const failure = simulatorModel({ maxRetries: 1, initialRetryDelayMs: 1 }).complete(request);

    await expect(failure).rejects.toBeInstanceOf(RateLimitError);
    await expect(failure).rejects.toMatchObject({ status: 429 });
    expect(reasoner.requests).toHaveLength(2);
  });

  it("does not send a 400 again: a BadRequestError with the service's answer", async () => {
    const { reasoner } = harness.simulators;
    reasoner.requests.length = 0;

    const failure = simulatorModel().complete({ ...request, temperature: 7 });

    await expect(failure).rejects.toBeInstanceOf(BadRequestError);
    await expect(failure).rejects.toMatchObject({
      status: 400,
      body: { error: { param: "temperature" } },
    });
    expect(reasoner.requests).toHaveLength(1);
  });

  it("ends a stream whose provider reports an error mid-stream with a StreamError", async () => {
    harness.simulators.reasoner.failNext({ midStreamError: "error-event" });

    const stream = simulatorModel().stream(request);

    await expect(stream.finalCompletion()).rejects.toBeInstanceOf(StreamError);
    await expect(stream.finalCompletion()).rejects.toMatchObject({ kind: "provider_error" });
  });
});
