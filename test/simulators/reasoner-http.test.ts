import { afterEach, describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/errors/index.js";
import type { ReasonerSimulator } from "../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../src/simulators/reasoner/start-reasoner-simulator.js";
import { post, tools } from "./reasoner-test-helpers.js";

const running: ReasonerSimulator[] = [];
async function start(options: Parameters<typeof startReasonerSimulator>[0] = {}) {
  const simulator = await startReasonerSimulator(options);
  running.push(simulator);
  return simulator;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((simulator) => simulator.close()));
});

const hello = { messages: [{ role: "user", content: "hello" }] };

interface Completion {
  object: string;
  model: string;
  provider: string;
  choices: Array<{
    index: number;
    finish_reason: string;
    message: {
      role: string;
      content: string | null;
      tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    };
  }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

async function completion(response: Response): Promise<Completion> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Completion;
}

describe("reasoner simulator over HTTP", () => {
  it("listens on loopback with a random port and a generated key", async () => {
    const first = await start();
    const second = await start();
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions$/);
    expect(first.url).not.toBe(second.url);
    expect(first.apiKey).toMatch(/^sk-sim-/);
    expect(first.apiKey).not.toBe(second.apiKey);
  });

  it("answers 401 without the bearer key or with a wrong one, never echoing it", async () => {
    const simulator = await start({ apiKey: "sk-right" });
    const missing = await fetch(simulator.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(hello),
    });
    expect(missing.status).toBe(401);
    const missingBody = (await missing.json()) as {
      error: { type: string; code: string; message: string };
    };
    expect(missingBody.error).toMatchObject({
      type: "authentication_error",
      code: "missing_api_key",
    });
    const wrong = await post(simulator, hello, {
      headers: { authorization: "Bearer sk-wrong-key" },
    });
    expect(wrong.status).toBe(401);
    const text = await wrong.text();
    expect(text).toContain("invalid_api_key");
    expect(text).not.toContain("sk-wrong-key");
    expect((await post(simulator, hello)).status).toBe(200);
  });

  it("answers 404 naming the path and where chat completions are served, and 405 for other methods", async () => {
    const simulator = await start();
    for (const [method, path] of [
      ["POST", "/v1/responses"],
      ["GET", "/nope"],
      ["POST", "/some/other/path?x=1"],
      ["POST", "/chat/completions"],
    ] as const) {
      const answer = await fetch(new URL(path, simulator.url), {
        method,
        headers: {
          authorization: `Bearer ${simulator.apiKey}`,
          "content-type": "application/json",
        },
        ...(method === "POST" ? { body: JSON.stringify(hello) } : {}),
      });
      expect(answer.status, path).toBe(404);
      const body = (await answer.json()) as {
        error: { message: string; type: string; code: string };
      };
      expect(body.error).toMatchObject({ type: "invalid_request_error", code: "unknown_url" });
      expect(body.error.message).toContain(`${method} ${path.split("?")[0]}`);
      expect(body.error.message).toContain("POST /v1/chat/completions");
    }
    const get = await fetch(simulator.url, {
      headers: { authorization: `Bearer ${simulator.apiKey}` },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(((await get.json()) as { error: { code: string } }).error.code).toBe(
      "method_not_allowed",
    );
    const postModels = await post(simulator, hello, {
      url: new URL("/v1/models", simulator.url).href,
    });
    expect(postModels.status).toBe(405);
    expect(postModels.headers.get("allow")).toBe("GET");
    // The chat path still answers.
    expect((await post(simulator, hello)).status).toBe(200);
  });

  it("lists the known models at GET /v1/models, beside the chat path, behind the key", async () => {
    const simulator = await start();
    // Where an OpenAI client looks, given the base URL in front of /chat/completions.
    const modelsUrl = simulator.url.replace(/\/chat\/completions$/, "/models");
    expect(new URL(modelsUrl).pathname).toBe("/v1/models");
    const listed = await fetch(modelsUrl, {
      headers: { authorization: `Bearer ${simulator.apiKey}` },
    });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await listed.json()) as {
      object: string;
      data: Array<{ id: string; object: string; created: number; owned_by: string }>;
    };
    expect(body.object).toBe("list");
    expect(body.data.map((model) => model.id)).toEqual([
      "oss-120b",
      "vendorA/r1",
      "vendorA/v3",
      "vendorB/235b",
      "vendorB/2.5-max",
      "vendorC/small-3-24b",
    ]);
    for (const model of body.data) {
      expect(Object.keys(model).sort()).toEqual(["created", "id", "object", "owned_by"]);
      expect(model.object).toBe("model");
      expect(Number.isInteger(model.created)).toBe(true);
      expect(model.owned_by).not.toBe("");
    }
    expect((await fetch(modelsUrl)).status).toBe(401);
    // A queued fault waits for the next chat request.
    simulator.failNext({ status: 429 });
    const again = await fetch(modelsUrl, {
      headers: { authorization: `Bearer ${simulator.apiKey}` },
    });
    expect(again.status).toBe(200);
    expect((await post(simulator, hello)).status).toBe(429);
  });

  it("echoes the model and the first preferred provider, with defaults", async () => {
    const simulator = await start();
    const plain = await completion(await post(simulator, hello));
    expect(plain.model).toBe("oss-120b");
    expect(plain.provider).toBe("sim-default");
    const routed = await completion(
      await post(simulator, {
        ...hello,
        model: "vendorA/r1",
        extra_body: { provider: { order: ["vendor-b", "vendor-a"], allow_fallbacks: true } },
      }),
    );
    expect(routed.model).toBe("vendorA/r1");
    expect(routed.provider).toBe("vendor-b");
    const merged = await completion(
      await post(simulator, { ...hello, provider: { order: ["top-level"] } }),
    );
    expect(merged.provider).toBe("top-level");
  });

  it("answers a standard chat.completion with rough usage", async () => {
    const simulator = await start();
    const answer = await completion(await post(simulator, hello));
    expect(answer.object).toBe("chat.completion");
    const choice = answer.choices[0]!;
    expect(choice.message.role).toBe("assistant");
    expect(choice.message.content).toContain("simulator");
    expect(choice.finish_reason).toBe("stop");
    expect(answer.usage.completion_tokens).toBe(Math.ceil(choice.message.content!.length / 4));
    expect(answer.usage.total_tokens).toBe(
      answer.usage.prompt_tokens + answer.usage.completion_tokens,
    );
  });

  it("records requests without the authorization header", async () => {
    const simulator = await start();
    await post(simulator, hello, { headers: { "x-trace": "abc" } });
    expect(simulator.requests).toHaveLength(1);
    const recorded = simulator.requests[0]!;
    expect(recorded.method).toBe("POST");
    expect(recorded.path).toBe("/v1/chat/completions");
    expect(recorded.body).toEqual(hello);
    expect(recorded.headers["x-trace"]).toBe("abc");
    expect(recorded.headers.authorization).toBeUndefined();
    expect(JSON.stringify(recorded)).not.toContain(simulator.apiKey);
  });

  it("plays queued status faults in order, with headers and repeat counts", async () => {
    const simulator = await start();
    simulator.failNext({ status: 429, headers: { "retry-after": "2" }, times: 2 });
    simulator.failNext({ status: 503, body: "upstream down" });
    const first = await post(simulator, hello);
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("2");
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe(
      "rate_limit_exceeded",
    );
    expect((await post(simulator, hello)).status).toBe(429);
    const third = await post(simulator, hello);
    expect(third.status).toBe(503);
    expect(await third.text()).toBe("upstream down");
    expect((await post(simulator, hello)).status).toBe(200);
    expect(() => simulator.failNext({})).toThrow(ConfigurationError);
    expect(() => simulator.failNext({ status: 42 })).toThrow(/100\.\.599/);
  });

  it("cuts the connection of a non-streaming request on a cut fault", async () => {
    const simulator = await start();
    simulator.failNext({ midStreamError: "cut" });
    await expect(post(simulator, hello)).rejects.toThrow();
    expect((await post(simulator, hello)).status).toBe(200);
  });

  it("answers n choices", async () => {
    const simulator = await start();
    const answer = await completion(await post(simulator, { ...hello, n: 3 }));
    expect(answer.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
  });

  it("honours tool_choice none and a forced function", async () => {
    const simulator = await start({ scenario: "echo-tool" });
    const offered = { ...hello, tools: tools("ping", "pong") };
    const free = await completion(await post(simulator, offered));
    expect(free.choices[0]!.message.tool_calls?.[0]?.function.name).toBe("ping");
    expect(free.choices[0]!.finish_reason).toBe("tool_calls");
    const none = await completion(await post(simulator, { ...offered, tool_choice: "none" }));
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
    expect(none.choices[0]!.message.content).toContain('tool_choice is "none"');
    const forced = await completion(
      await post(simulator, {
        ...offered,
        tool_choice: { type: "function", function: { name: "pong" } },
      }),
    );
    expect(forced.choices[0]!.message.tool_calls?.map((call) => call.function.name)).toEqual([
      "pong",
    ]);
  });

  it("cuts text at a stop sequence and at max_tokens", async () => {
    const simulator = await start({ scenario: () => "alpha beta STOP gamma delta epsilon zeta" });
    const stopped = await completion(await post(simulator, { ...hello, stop: ["STOP"] }));
    expect(stopped.choices[0]!.message.content).toBe("alpha beta ");
    expect(stopped.choices[0]!.finish_reason).toBe("stop");
    const short = await completion(await post(simulator, { ...hello, max_tokens: 2 }));
    expect(short.choices[0]!.message.content).toBe("alpha be");
    expect(short.choices[0]!.finish_reason).toBe("length");
  });

  it("runs a scenario function and reports its failure as a 500", async () => {
    let calls = 0;
    const simulator = await start({
      scenario: (request) => {
        calls++;
        if (request.messages.length > 1) throw new Error("script ran out of steps");
        return {
          text: null,
          toolCalls: [{ name: "ping", arguments: { at: 1 }, id: "call_fixed" }],
        };
      },
    });
    const answer = await completion(await post(simulator, hello));
    expect(answer.choices[0]!.message.tool_calls).toEqual([
      { id: "call_fixed", type: "function", function: { name: "ping", arguments: '{"at":1}' } },
    ]);
    const failed = await post(simulator, {
      messages: [
        ...hello.messages,
        { role: "assistant", content: "ok" },
        { role: "user", content: "more" },
      ],
    });
    expect(failed.status).toBe(500);
    expect(await failed.text()).toContain("script ran out of steps");
    expect(calls).toBe(2);
  });

  it("rejects unknown scenario and chunking names when starting", async () => {
    await expect(startReasonerSimulator({ scenario: "nope" as "auto" })).rejects.toThrow(
      /Unknown scenario "nope"/,
    );
    await expect(startReasonerSimulator({ chunking: "nope" as "openai" })).rejects.toThrow(
      /Unknown chunking/,
    );
  });

  it("serves many concurrent requests", async () => {
    const simulator = await start({ scenario: "echo-tool", recordRequests: false });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        post(simulator, {
          messages: [{ role: "user", content: `run ${index}` }],
          tools: tools("ping"),
          stream: index % 2 === 0,
        }),
      ),
    );
    expect(answers.every((response) => response.status === 200)).toBe(true);
    await Promise.all(answers.map((response) => response.text()));
    expect(simulator.requests).toHaveLength(0);
  });
});
