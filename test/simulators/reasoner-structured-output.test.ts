import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { ReasonerClient } from "../../src/clients/reasoner/reasoner-client.js";
import type { ReasonerSimulator } from "../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../src/simulators/reasoner/start-reasoner-simulator.js";
import { assemble, nextMessage, post, readStream } from "./reasoner-test-helpers.js";

const ajvOptions = { strict: false, allErrors: true, allowUnionTypes: true };
const draft2020 = new Ajv2020(ajvOptions);
const draft07 = new Ajv(ajvOptions);
addFormats.default(draft2020);
addFormats.default(draft07);

/** Ajv's verdict on `value` (draft-07 or 2020-12, as the schema says): "valid", or its errors. */
function verdict(schema: object, value: unknown): string {
  const declared = (schema as { $schema?: unknown }).$schema;
  const ajv = String(declared).includes("draft-07") ? draft07 : draft2020;
  const validate = ajv.compile(schema);
  return validate(value) ? "valid" : JSON.stringify(validate.errors);
}

const hello = [{ role: "user", content: "Report on the orders." }];

function jsonSchemaFormat(schema: object, name = "report") {
  return { type: "json_schema", json_schema: { name, schema, strict: false } };
}

/** Schemas of the kinds clients send, each with a constraint a fixed answer would miss. */
const schemas: Record<string, object> = {
  "required properties, nested, no extras": {
    type: "object",
    properties: {
      total: { type: "integer", minimum: 3, maximum: 9 },
      byStatus: {
        type: "object",
        properties: { paid: { type: "number" }, open: { type: "number" } },
        required: ["paid", "open"],
        additionalProperties: false,
      },
    },
    required: ["total", "byStatus"],
    additionalProperties: false,
  },
  "enum, const and a nullable field": {
    type: "object",
    properties: {
      status: { enum: ["shipped", "held"] },
      version: { const: 2 },
      note: { type: ["string", "null"] },
    },
    required: ["status", "version", "note"],
  },
  "arrays with minItems, unique items and tuples": {
    type: "object",
    properties: {
      tags: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 3, uniqueItems: true },
      pair: { type: "array", prefixItems: [{ type: "string" }, { type: "boolean" }], items: false },
      scores: { type: "array", items: { type: "number", exclusiveMinimum: 0, maximum: 0.5 } },
    },
    required: ["tags", "pair", "scores"],
  },
  "string formats, patterns and lengths": {
    type: "object",
    properties: {
      when: { type: "string", format: "date-time" },
      day: { type: "string", format: "date" },
      contact: { type: "string", format: "email" },
      link: { type: "string", format: "uri" },
      id: { type: "string", format: "uuid" },
      sku: { type: "string", pattern: "^[A-Z]{3}-\\d{4}(-[a-z]+)?$" },
      code: { type: "string", minLength: 20, maxLength: 24 },
      initial: { type: "string", maxLength: 1 },
    },
    required: ["when", "day", "contact", "link", "id", "sku", "code", "initial"],
  },
  "numbers within bounds and on a step": {
    type: "object",
    properties: {
      percent: { type: "number", minimum: 10, maximum: 20, multipleOf: 5 },
      negative: { type: "integer", exclusiveMaximum: -4 },
      odd: { type: "integer", minimum: 7, maximum: 7 },
    },
    required: ["percent", "negative", "odd"],
  },
  "anyOf and oneOf pick a valid branch": {
    type: "object",
    properties: {
      target: {
        oneOf: [{ type: "integer" }, { type: "number", minimum: 0 }],
      },
      kind: {
        anyOf: [
          { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          { type: "null" },
        ],
      },
      choice: {
        oneOf: [
          { type: "string", enum: ["x"] },
          { type: "string", pattern: "^y+$" },
        ],
      },
    },
    required: ["target", "kind", "choice"],
  },
  "$ref into $defs, recursive": {
    $defs: {
      node: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 2 },
          children: { type: "array", items: { $ref: "#/$defs/node" }, minItems: 1, maxItems: 2 },
        },
        required: ["name"],
      },
    },
    type: "object",
    properties: { root: { $ref: "#/$defs/node" } },
    required: ["root"],
  },
  "draft-07 definitions and allOf": {
    $schema: "http://json-schema.org/draft-07/schema#",
    definitions: { money: { type: "number", minimum: 100 } },
    allOf: [
      {
        type: "object",
        properties: { amount: { $ref: "#/definitions/money" } },
        required: ["amount"],
      },
      { properties: { currency: { const: "EUR" } }, required: ["currency"] },
    ],
  },
  "records and minProperties": {
    type: "object",
    properties: {
      counts: {
        type: "object",
        additionalProperties: { type: "integer", minimum: 1 },
        minProperties: 2,
      },
      headers: {
        type: "object",
        patternProperties: { "^x-[a-z]+$": { type: "string" } },
        additionalProperties: false,
        minProperties: 1,
      },
    },
    required: ["counts", "headers"],
  },
};

describe("response_format against the reasoner simulator", () => {
  let simulator: ReasonerSimulator;
  beforeAll(async () => {
    simulator = await startReasonerSimulator();
  });
  afterAll(() => simulator.close());

  for (const [title, schema] of Object.entries(schemas)) {
    it(`json_schema: the answer is JSON the schema accepts (${title}), plain and streamed`, async () => {
      const body = { messages: hello, response_format: jsonSchemaFormat(schema) };
      const message = await nextMessage(simulator, body);
      expect(message.tool_calls).toBeUndefined();
      const value = JSON.parse(message.content!) as unknown;
      expect(verdict(schema, value)).toBe("valid");

      const streamed = await readStream(await post(simulator, { ...body, stream: true }));
      const { content, finishReason } = assemble(streamed.chunks);
      expect(finishReason).toBe("stop");
      expect(JSON.parse(content)).toEqual(value);
    });
  }

  it("json_schema: each value comes from its schema, not from one fixed answer", async () => {
    const answers = new Set<string>();
    for (const schema of Object.values(schemas)) {
      const message = await nextMessage(simulator, {
        messages: hello,
        response_format: jsonSchemaFormat(schema),
      });
      answers.add(message.content!);
    }
    expect(answers.size).toBe(Object.keys(schemas).length);
  });

  it("json_object: the answer is a JSON object carrying the scenario's text", async () => {
    const message = await nextMessage(simulator, {
      messages: hello,
      response_format: { type: "json_object" },
    });
    const value = JSON.parse(message.content!) as { answer: string };
    expect(Object.keys(value)).toEqual(["answer"]);
    const plain = await nextMessage(simulator, { messages: hello });
    expect(value.answer).toBe(plain.content);
    expect(value.answer).not.toBe("");
  });

  it("refuses with 400 a schema that is invalid or that no value meets, naming the parameter", async () => {
    for (const schema of [
      { type: "object", properties: { a: { type: "no-such-type" } } },
      { type: "object", properties: { a: false }, required: ["a"] },
    ]) {
      const answer = await post(simulator, {
        messages: hello,
        response_format: jsonSchemaFormat(schema, "broken"),
      });
      expect(answer.status).toBe(400);
      const { error } = (await answer.json()) as {
        error: { message: string; type: string; code: string; param: string };
      };
      expect(error).toMatchObject({
        type: "invalid_request_error",
        code: "invalid_schema",
        param: "response_format.json_schema.schema",
      });
      expect(error.message).toContain('response_format "broken"');
    }
  });

  it("sends a scenario function's answer as it gives it, so a script can get the format wrong", async () => {
    const scripted = await startReasonerSimulator({ scenario: () => "not JSON at all" });
    try {
      const message = await nextMessage(scripted, {
        messages: hello,
        response_format: jsonSchemaFormat(schemas["records and minProperties"]!),
      });
      expect(message.content).toBe("not JSON at all");
    } finally {
      await scripted.close();
    }
  });
});

describe("a forced tool_choice against the reasoner simulator", () => {
  let simulator: ReasonerSimulator;
  beforeAll(async () => {
    simulator = await startReasonerSimulator();
  });
  afterAll(() => simulator.close());

  const parameters = {
    type: "object",
    properties: {
      order_id: { type: "string", pattern: "^ord_[0-9a-f]{8}$" },
      percent: { type: "integer", minimum: 5, maximum: 50 },
      reason: { enum: ["loyalty", "damaged"] },
      items: {
        type: "array",
        items: {
          type: "object",
          properties: { sku: { type: "string" }, quantity: { type: "integer", minimum: 1 } },
          required: ["sku", "quantity"],
          additionalProperties: false,
        },
        minItems: 1,
      },
    },
    required: ["order_id", "percent", "reason", "items"],
    additionalProperties: false,
  };
  const body = {
    messages: [{ role: "user", content: "hello" }],
    tools: [
      { type: "function", function: { name: "list_orders", parameters: { type: "object" } } },
      {
        type: "function",
        function: { name: "apply_discount", description: "Discount.", parameters },
      },
    ],
    tool_choice: { type: "function", function: { name: "apply_discount" } },
  };

  it("calls the forced tool with arguments its parameters schema accepts, plain and streamed", async () => {
    const message = await nextMessage(simulator, body);
    const [call] = message.tool_calls ?? [];
    expect(message.tool_calls).toHaveLength(1);
    expect(call!.function.name).toBe("apply_discount");
    const args = JSON.parse(call!.function.arguments) as unknown;
    expect(verdict(parameters, args)).toBe("valid");

    const streamed = assemble(
      (await readStream(await post(simulator, { ...body, stream: true }))).chunks,
    );
    expect(streamed.finishReason).toBe("tool_calls");
    expect(streamed.calls.map((streamedCall) => streamedCall.name)).toEqual(["apply_discount"]);
    expect(JSON.parse(streamed.calls[0]!.arguments)).toEqual(args);
  });

  it("refuses with 400 a forced tool whose parameters no value meets, naming the tool", async () => {
    const impossible = {
      type: "object",
      properties: { a: { type: "string", minLength: 3, maxLength: 2 } },
      required: ["a"],
    };
    const answer = await post(simulator, {
      ...body,
      tools: [{ type: "function", function: { name: "apply_discount", parameters: impossible } }],
    });
    expect(answer.status).toBe(400);
    const { error } = (await answer.json()) as { error: { message: string; param: string } };
    expect(error.param).toBe("tools[0].function.parameters");
    expect(error.message).toContain('function "apply_discount"');
  });
});

describe("an agent with structured output against the reasoner simulator", () => {
  let simulator: ReasonerSimulator;
  beforeAll(async () => {
    simulator = await startReasonerSimulator();
  });
  afterAll(() => simulator.close());

  // The README's structured-output example, over real HTTP.
  const output = z.object({ total: z.number(), byStatus: z.record(z.string(), z.number()) });

  it("completes with a value the schema parses, on the first answer, streamed or not", async () => {
    const model = new ReasonerClient({ url: simulator.url, apiKey: simulator.apiKey });
    const agent = new Agent({ model });
    const report = await agent.run("Count the orders by status", { output });
    expect(report.status).toBe("completed");
    expect(output.parse(report.output)).toEqual(report.output);
    expect(typeof report.output?.total).toBe("number");

    const streamed = await agent.stream("Count the orders by status", { output }).result;
    expect(streamed.status).toBe("completed");
    expect(output.parse(streamed.output)).toEqual(streamed.output);
    // No correction round: the first answer already met the schema.
    expect(simulator.requests).toHaveLength(2);
  });
});
