import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { Agent } from "../../../src/agent/agent.js";
import { InvalidOutputError } from "../../../src/agent/errors.js";
import type { ModelRequest } from "../../../src/agent/model.js";
import { ReasonerClient } from "../../../src/clients/reasoner/reasoner-client.js";
import { ConfigurationError } from "../../../src/errors/configuration-error.js";
import type { ReasonerSimulator } from "../../../src/simulators/reasoner/reasoner-simulator-options.js";
import { startReasonerSimulator } from "../../../src/simulators/reasoner/start-reasoner-simulator.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { addNumbersTool } from "../fixtures.js";

const report = z.object({
  total: z.number().int(),
  byStatus: z.record(z.string(), z.number()),
});

const lastUserText = (request: ModelRequest) =>
  request.messages.filter((message) => message.role === "user").at(-1)?.content ?? "";

describe("structured output with the scripted model", () => {
  it("asks for JSON matching the schema, and sends an invalid answer back with the validator's words", async () => {
    const model = new ScriptedModel([
      { text: '{"total": "seven", "byStatus": {}}' },
      { text: '{"total": 7, "byStatus": {"paid": 5, "open": 2}}' },
    ]);
    const agent = new Agent({ model, output: report });
    const result = await agent.run("Count the orders by status");

    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ total: 7, byStatus: { paid: 5, open: 2 } });
    expectTypeOf(result.output).toEqualTypeOf<
      { total: number; byStatus: Record<string, number> } | undefined
    >();

    const format = model.requests[0]?.response_format;
    expect(format).toMatchObject({
      type: "json_schema",
      json_schema: {
        name: "output",
        strict: false,
        schema: { type: "object", required: ["total", "byStatus"] },
      },
    });
    // The correction names the field and the problem, as the validator said it.
    const correction = lastUserText(model.requests[1]!);
    expect(correction).toContain("total");
    expect(correction).toMatch(/expected number/i);
    expect(model.requests[1]?.messages.at(-2)).toMatchObject({
      role: "assistant",
      content: '{"total": "seven", "byStatus": {}}',
    });
    expect(result.steps).toHaveLength(2);
  });

  it("fails with InvalidOutputError holding the last answer once outputRetries are spent", async () => {
    const model = new ScriptedModel([
      { text: "Seven orders, mostly paid." },
      { text: '{"total": 7}' },
      { text: "never asked" },
    ]);
    const result = await new Agent({ model, output: report, outputRetries: 1 }).run("Count");
    expect(result.status).toBe("failed");
    expect(result.output).toBeUndefined();
    expect(result.error).toBeInstanceOf(InvalidOutputError);
    const error = result.error as InvalidOutputError;
    expect(error.text).toBe('{"total": 7}');
    expect(error.attempts).toBe(2);
    expect(error.issues.join("\n")).toContain("byStatus");
    expect(model.requests).toHaveLength(2);
    // The first answer was not JSON at all; the model was told so.
    expect(lastUserText(model.requests[1]!)).toContain("not JSON");
  });

  it("reads JSON in a Markdown fence, runs tools first, and applies zod transforms", async () => {
    const { tool } = addNumbersTool();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add_numbers", arguments: { a: 2, b: 3 } }] },
      { text: '```json\n{"sum": 5, "note": "  five  "}\n```' },
    ]);
    const agent = new Agent({
      model,
      tools: [tool],
      output: z.object({ sum: z.number(), note: z.string().transform((note) => note.trim()) }),
    });
    const result = await agent.run("2 + 3?");
    expect(result.output).toEqual({ sum: 5, note: "five" });
    // Every model call asks for the format, the tool step included.
    expect(model.requests.every((request) => request.response_format?.type === "json_schema")).toBe(
      true,
    );
  });

  it("takes a per-run schema over the agent's, and zod 3 and JSON Schema too", async () => {
    const agent = new Agent({
      model: new ScriptedModel([{ text: '{"ok": true}' }, { text: '{"name": "switchyard"}' }]),
    });
    const first = await agent.run("ok?", { output: z3.object({ ok: z3.boolean() }) });
    expect(first.output).toEqual({ ok: true });
    expectTypeOf(first.output).toEqualTypeOf<{ ok: boolean } | undefined>();
    const strictSchema = {
      type: "object",
      title: "project",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: false,
    };
    const second = await agent.run("name?", { output: strictSchema });
    expect(second.output).toEqual({ name: "switchyard" });
    expectTypeOf(second.output).toEqualTypeOf<Record<string, unknown> | undefined>();
    const plain = await new Agent({ model: new ScriptedModel([{ text: "hi" }]) }).run("hi");
    expectTypeOf(plain.output).toEqualTypeOf<string>();
  });

  it("asks for strict only when the schema allows it, and names it after its title", async () => {
    const model = new ScriptedModel([{ text: '{"name": "x"}' }]);
    const schema = {
      type: "object",
      title: "project",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: false,
    };
    await new Agent({ model, output: schema }).run("name?");
    expect(model.requests[0]?.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "project", schema, strict: true },
    });
  });

  it("rejects a schema that is not an object, or output with response_format", () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ model, output: z.string() })).toThrow(
      /output must describe an object/,
    );
    expect(
      () =>
        new Agent({
          model,
          output: report,
          requestOptions: { response_format: { type: "json_object" } },
        }),
    ).toThrow(ConfigurationError);
    expect(() => new Agent({ model, output: report, outputRetries: -1 })).toThrow(
      /outputRetries must be a whole number/,
    );
  });
});

describe("structured output against the reasoner simulator", () => {
  let simulator: ReasonerSimulator;
  beforeAll(async () => {
    // A model that gets the format wrong once: answers as text until told what was wrong.
    simulator = await startReasonerSimulator({
      scenario: (request) => {
        const format = request.response_format;
        if (format?.type !== "json_schema") return "no format asked for";
        const corrected = request.messages.some(
          (message) => message.role === "user" && message.content.includes("does not match"),
        );
        return corrected
          ? JSON.stringify({ total: 3, byStatus: { paid: 3 } })
          : `Here you go: ${JSON.stringify({ total: "3" })}`;
      },
    });
  });
  afterAll(() => simulator.close());

  it("is corrected on the second try, streamed", async () => {
    const model = new ReasonerClient({ url: simulator.url, apiKey: simulator.apiKey });
    const stream = new Agent({ model, output: report }).stream("Count the orders");
    const result = await stream.result;
    expect(result.status).toBe("completed");
    expect(result.output).toEqual({ total: 3, byStatus: { paid: 3 } });
    const bodies = simulator.requests.map((request) => request.body as Record<string, unknown>);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]?.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "output", schema: { type: "object" } },
    });
  });
});
