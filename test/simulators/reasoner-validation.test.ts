import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReasonerSimulator } from "../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../src/simulators/reasoner/start-reasoner-simulator.js";
import { post, tools } from "./reasoner-test-helpers.js";

let simulator: ReasonerSimulator;
beforeAll(async () => {
  simulator = await startReasonerSimulator({ scenario: "echo-tool" });
});
afterAll(() => simulator.close());

const user = [{ role: "user", content: "hello" }];

async function rejected(body: unknown) {
  const response = await post(simulator, body);
  const text = await response.text();
  expect(response.status, text).toBe(400);
  const { error } = JSON.parse(text) as {
    error: { message: string; type: string; code: string; param: string | null };
  };
  expect(error.type).toBe("invalid_request_error");
  expect(error.message.length).toBeGreaterThan(10);
  return error;
}

async function accepted(body: unknown) {
  const response = await post(simulator, body);
  expect(response.status, await response.text()).toBe(200);
}

describe("reasoner simulator request validation", () => {
  it("requires a non-empty messages array", async () => {
    expect((await rejected({})).code).toBe("missing_required_parameter");
    expect((await rejected({ messages: [] })).param).toBe("messages");
    expect((await rejected({ messages: "hello" })).param).toBe("messages");
  });

  it("accepts each documented role and rejects others", async () => {
    await accepted({
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        { role: "function", name: "lookup", content: null },
        { role: "user", content: "again" },
      ],
    });
    const error = await rejected({ messages: [{ role: "robot", content: "hi" }] });
    expect(error.param).toBe("messages[0].role");
    expect(error.message).toContain("system, user, assistant, tool, function");
  });

  it("requires string content, null only where the role allows it", async () => {
    expect((await rejected({ messages: [{ role: "user", content: 42 }] })).param).toBe(
      "messages[0].content",
    );
    expect((await rejected({ messages: [{ role: "user", content: null }] })).param).toBe(
      "messages[0].content",
    );
    expect((await rejected({ messages: [{ role: "user" }] })).code).toBe(
      "missing_required_parameter",
    );
    const parts = [{ type: "text", text: "hi" }];
    expect((await rejected({ messages: [{ role: "user", content: parts }] })).code).toBe(
      "invalid_type",
    );
  });

  it("requires tool_call_id on tool messages, answering a call the assistant made", async () => {
    const call = { id: "call_1", type: "function", function: { name: "ping", arguments: "{}" } };
    const base = [...user, { role: "assistant", content: null, tool_calls: [call] }];
    const missing = await rejected({ messages: [...base, { role: "tool", content: "{}" }] });
    expect(missing.param).toBe("messages[2].tool_call_id");
    const unknown = await rejected({
      messages: [...base, { role: "tool", tool_call_id: "call_9", content: "{}" }],
    });
    expect(unknown.message).toContain("call_9");
    const unanswered = await rejected({ messages: [...base, { role: "user", content: "next" }] });
    expect(unanswered.param).toBe("messages[1].tool_calls");
    expect(unanswered.message).toContain("call_1");
    await accepted({
      messages: [...base, { role: "tool", tool_call_id: "call_1", content: "{}" }],
      tools: tools("ping"),
    });
  });

  it("requires a name on function messages", async () => {
    const error = await rejected({ messages: [...user, { role: "function", content: "{}" }] });
    expect(error.param).toBe("messages[1].name");
  });

  it("checks the ranges of temperature, top_p and the penalties", async () => {
    for (const [param, low, high, good] of [
      ["temperature", -0.1, 2.1, 2],
      ["top_p", -0.1, 1.1, 1],
      ["presence_penalty", -2.1, 2.1, -2],
      ["frequency_penalty", -2.1, 2.1, 2],
    ] as const) {
      expect((await rejected({ messages: user, [param]: low })).param).toBe(param);
      expect((await rejected({ messages: user, [param]: high })).param).toBe(param);
      expect((await rejected({ messages: user, [param]: "1" })).code).toBe("invalid_type");
      await accepted({ messages: user, [param]: good });
    }
  });

  it("requires n and max_tokens to be positive integers", async () => {
    for (const param of ["n", "max_tokens"]) {
      for (const bad of [0, -1, 1.5, "2"]) {
        expect((await rejected({ messages: user, [param]: bad })).param).toBe(param);
      }
      await accepted({ messages: user, [param]: 3 });
    }
  });

  it("accepts stop as a string or at most 4 strings", async () => {
    await accepted({ messages: user, stop: "END" });
    await accepted({ messages: user, stop: ["a", "b", "c", "d"] });
    expect((await rejected({ messages: user, stop: ["a", "b", "c", "d", "e"] })).message).toContain(
      "at most 4",
    );
    expect((await rejected({ messages: user, stop: [1] })).param).toBe("stop");
  });

  it("checks tool definitions", async () => {
    const bad = [
      [{ type: "retrieval", function: { name: "a", parameters: {} } }, "tools[0].type"],
      [{ type: "function" }, "tools[0].function"],
      [
        { type: "function", function: { name: "has space", parameters: {} } },
        "tools[0].function.name",
      ],
      [
        { type: "function", function: { name: "a", description: 3, parameters: {} } },
        "tools[0].function.description",
      ],
      [{ type: "function", function: { name: "a" } }, "tools[0].function.parameters"],
      [
        { type: "function", function: { name: "a", parameters: { type: "string" } } },
        "tools[0].function.parameters",
      ],
    ] as const;
    for (const [definition, param] of bad) {
      expect((await rejected({ messages: user, tools: [definition] })).param).toBe(param);
    }
    expect((await rejected({ messages: user, tools: tools("a", "a") })).message).toContain("twice");
    await accepted({
      messages: user,
      tools: [{ type: "function", function: { name: "a", parameters: { type: "object" } } }],
    });
  });

  it("checks tool_choice and the tool it names", async () => {
    await accepted({ messages: user, tools: tools("ping"), tool_choice: "none" });
    await accepted({ messages: user, tools: tools("ping"), tool_choice: "auto" });
    await accepted({
      messages: user,
      tools: tools("ping"),
      tool_choice: { type: "function", function: { name: "ping" } },
    });
    expect((await rejected({ messages: user, tool_choice: "required" })).param).toBe("tool_choice");
    const unknown = await rejected({
      messages: user,
      tools: tools("ping"),
      tool_choice: { type: "function", function: { name: "pong" } },
    });
    expect(unknown.param).toBe("tool_choice.function.name");
    expect(unknown.message).toContain("pong");
  });

  it("checks extra_body.provider and extra_body.compression, and the top-level forms", async () => {
    const provider = { order: ["alpha", "beta"], allow_fallbacks: false, require: ["tools"] };
    const compression = {
      token_limit: 8000,
      mmr_lambda_text: 0.5,
      mmr_lambda_code: 1,
      embedding_provider: "local",
    };
    await accepted({ messages: user, extra_body: { provider, compression } });
    await accepted({ messages: user, provider, compression });
    const cases = [
      [{ extra_body: "fast" }, "extra_body"],
      [{ extra_body: { provider: { order: "alpha" } } }, "extra_body.provider.order"],
      [
        { extra_body: { provider: { allow_fallbacks: "no" } } },
        "extra_body.provider.allow_fallbacks",
      ],
      [{ extra_body: { provider: { require: [1] } } }, "extra_body.provider.require"],
      [{ extra_body: { compression: { token_limit: 0 } } }, "extra_body.compression.token_limit"],
      [{ extra_body: { compression: { token_limit: 1.5 } } }, "extra_body.compression.token_limit"],
      [
        { extra_body: { compression: { mmr_lambda_text: 1.2 } } },
        "extra_body.compression.mmr_lambda_text",
      ],
      [
        { extra_body: { compression: { mmr_lambda_code: -0.1 } } },
        "extra_body.compression.mmr_lambda_code",
      ],
      [
        { extra_body: { compression: { embedding_provider: 5 } } },
        "extra_body.compression.embedding_provider",
      ],
      [{ provider: { order: [1] } }, "provider.order"],
      [{ compression: { token_limit: -5 } }, "compression.token_limit"],
    ] as const;
    for (const [extra, param] of cases) {
      expect((await rejected({ messages: user, ...extra })).param).toBe(param);
    }
  });

  it("rejects a body that is not JSON or not sent as JSON", async () => {
    expect((await rejected("{not json")).code).toBe("invalid_json");
    const response = await post(
      simulator,
      { messages: user },
      { headers: { "content-type": "text/plain" } },
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "unsupported_content_type",
    );
  });
});

describe("reasoner simulator response_format", () => {
  const schema = { type: "object", properties: { total: { type: "number" } } };

  it("accepts text, json_object and json_schema formats", async () => {
    await accepted({ messages: user, response_format: { type: "text" } });
    await accepted({ messages: user, response_format: { type: "json_object" } });
    await accepted({
      messages: user,
      response_format: {
        type: "json_schema",
        json_schema: { name: "report", schema, strict: true },
      },
    });
  });

  it("names the bad part of a malformed response_format", async () => {
    expect((await rejected({ messages: user, response_format: { type: "xml" } })).param).toBe(
      "response_format.type",
    );
    expect(
      (await rejected({ messages: user, response_format: { type: "json_schema" } })).param,
    ).toBe("response_format.json_schema");
    const badName = { type: "json_schema", json_schema: { name: "a report", schema } };
    expect((await rejected({ messages: user, response_format: badName })).param).toBe(
      "response_format.json_schema.name",
    );
    const badStrict = { type: "json_schema", json_schema: { name: "r", schema, strict: "yes" } };
    expect((await rejected({ messages: user, response_format: badStrict })).param).toBe(
      "response_format.json_schema.strict",
    );
  });
});
