import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { compileJsonSchema } from "../../src/tools/compile-json-schema.js";
import { defineTool } from "../../src/tools/define-tool.js";

describe("compileJsonSchema", () => {
  const check = compileJsonSchema({
    type: "object",
    properties: {
      name: { type: "string", minLength: 2, maxLength: 5 },
      code: { type: "string", pattern: "^[A-Z]+$" },
      kind: { enum: ["a", "b"] },
      count: { type: "integer", minimum: 1, maximum: 10 },
      tags: { type: "array", minItems: 1, maxItems: 2, items: { type: "string" } },
      note: { type: ["string", "null"] },
      nested: { type: "object", properties: { flag: { type: "boolean" } }, required: ["flag"] },
    },
    required: ["name"],
  });

  it("accepts a valid value, and unknown properties when not forbidden", () => {
    expect(
      check({ name: "abc", code: "XY", kind: "a", count: 3, tags: ["t"], note: null, other: 1 }),
    ).toEqual([]);
  });

  it("reports every problem with its path, in the validator's words", () => {
    expect(
      check({
        name: "a",
        code: "xy",
        kind: "c",
        count: 2.5,
        tags: [1, "b", "c"],
        note: 4,
        nested: {},
      }),
    ).toEqual([
      "name: must NOT have fewer than 2 characters",
      'code: must match pattern "^[A-Z]+$"',
      'kind: must be equal to one of the allowed values: "a", "b"',
      "count: must be integer",
      "tags: must NOT have more than 2 items",
      "tags[0]: must be string",
      "note: must be string,null",
      "nested: must have required property 'flag'",
    ]);
    expect(check([])).toEqual(["(root): must be object"]);
  });

  it("checks anyOf, $ref into $defs and format, which the old checker skipped", () => {
    const contact = compileJsonSchema({
      type: "object",
      $defs: { email: { type: "string", format: "email" } },
      properties: {
        to: { $ref: "#/$defs/email" },
        when: { type: "string", format: "date-time" },
        channel: { anyOf: [{ const: "sms" }, { type: "integer", minimum: 1 }] },
      },
      additionalProperties: false,
    });
    expect(contact({ to: "a@example.com", when: "2026-11-24T10:00:00Z", channel: 3 })).toEqual([]);
    expect(contact({ to: "nope", when: "tomorrow", channel: 0, extra: true })).toEqual([
      '(root): must NOT have additional properties: "extra" (allowed: to, when, channel)',
      'to: must match format "email"',
      'when: must match format "date-time"',
      'channel: must be equal to constant: "sms"',
      "channel: must be >= 1",
      "channel: must match a schema in anyOf",
    ]);
  });

  it("checks draft-07 schemas, as the MCP SDK writes them", () => {
    const draft7 = compileJsonSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { id: { type: "string", minLength: 3 } },
      properties: { id: { $ref: "#/definitions/id" } },
      required: ["id"],
    });
    expect(draft7({ id: "abc" })).toEqual([]);
    expect(draft7({ id: "a" })).toEqual(["id: must NOT have fewer than 3 characters"]);
  });

  it("refuses what it cannot check, naming it", () => {
    const refused = (schema: Record<string, unknown>) => {
      try {
        compileJsonSchema(schema, { subject: 'Tool "t"' });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as Error).message;
      }
      throw new Error("not refused");
    };
    expect(
      refused({ type: "object", properties: { a: { type: "string", colour: "red" } } }),
    ).toMatch(/Tool "t": the schema cannot be checked.*unknown keyword: "colour"/);
    expect(refused({ type: "string", format: "postcode" })).toMatch(/unknown format "postcode"/);
    expect(
      refused({ type: "object", properties: { a: { $ref: "https://example.com/a.json" } } }),
    ).toMatch(/can't resolve reference https:\/\/example.com\/a.json/);
    expect(refused({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" })).toMatch(
      /dialect that cannot be checked/,
    );
    expect(refused({ type: "object", minProperties: "two" })).toMatch(/cannot be checked/);
  });

  it("refuses a $schema named like a property every object inherits, as a dialect", () => {
    for (const $schema of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect(() => compileJsonSchema({ $schema, type: "object" }, { subject: 'Tool "t"' })).toThrow(
        new ConfigurationError(
          `Tool "t": its $schema "${$schema}" names a JSON Schema dialect that cannot be checked; use https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, http://json-schema.org/draft-07/schema (or leave $schema out for 2020-12).`,
        ),
      );
    }
  });

  it("checks an untrusted schema's patterns in linear time, JavaScript syntax translated", () => {
    const check = compileJsonSchema(
      {
        type: "object",
        properties: {
          key: { type: "string", pattern: "^(a+)+$" },
          code: { type: "string", pattern: "^\\u0041\\d{2}$" },
        },
        patternProperties: { "^x-(?<name>\\w+)$": { type: "number" } },
      },
      { untrusted: true },
    );
    // 2^44 steps for JavaScript's engine; RE2 answers at once.
    expect(check({ key: `${"a".repeat(44)}!`, code: "B12", "x-y": "1" })).toEqual([
      'key: must match pattern "^(a+)+$"',
      'code: must match pattern "^\\u0041\\d{2}$"',
      "x-y: must be number",
    ]);
    expect(check({ key: "aaa", code: "A12", "x-y": 1 })).toEqual([]);
    expect(() =>
      compileJsonSchema(
        { type: "string", pattern: "^(?!admin)" },
        { subject: 'Tool "t"', untrusted: true },
      ),
    ).toThrow(
      /^Tool "t": the schema cannot be checked, so it is refused \(the pattern "\^\(\?!admin\)" cannot be checked in linear time/,
    );
    // The program's own schemas keep JavaScript's engine.
    expect(compileJsonSchema({ type: "string", pattern: "^(?!admin)" })("root")).toEqual([]);
  });

  it("accepts keywords declared as annotations, and standard annotations", () => {
    const annotated = compileJsonSchema(
      {
        type: "object",
        title: "T",
        "x-order": 1,
        properties: { a: { description: "d", examples: [1] } },
      },
      { annotationKeywords: ["x-order"] },
    );
    expect(annotated({ a: 1 })).toEqual([]);
  });

  it("compiles two schemas with the same $id", () => {
    const first = compileJsonSchema({ $id: "https://example.com/s", type: "object" });
    const second = compileJsonSchema({
      $id: "https://example.com/s",
      type: "object",
      required: ["a"],
    });
    expect(first({})).toEqual([]);
    expect(second({})).toEqual(["(root): must have required property 'a'"]);
  });
});

describe("defineTool with JSON Schema parameters", () => {
  it("checks arguments with the validator and refuses a schema it cannot check", () => {
    const tool = defineTool({
      name: "notify",
      description: "Sends a note.",
      parameters: {
        type: "object",
        properties: { to: { type: "string", format: "email" } },
        required: ["to"],
      },
      execute: () => "sent",
    });
    expect(tool.checkArguments({ to: "x" })).toEqual({
      success: false,
      issues: ['to: must match format "email"'],
    });
    expect(tool.parameters).not.toHaveProperty("$schema");
    expect(() =>
      defineTool({
        name: "bad",
        description: "Bad.",
        parameters: { type: "object", properties: { a: { type: "string", format: "postcode" } } },
        execute: () => "",
      }),
    ).toThrow(/Tool "bad": the schema cannot be checked/);
  });
});
