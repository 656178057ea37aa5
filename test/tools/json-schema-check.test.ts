import { describe, expect, it } from "vitest";
import { createJsonSchemaCheck } from "../../src/tools/json-schema-check.js";

describe("createJsonSchemaCheck", () => {
  const check = createJsonSchemaCheck({
    type: "object",
    properties: {
      name: { type: "string", minLength: 2, maxLength: 5 },
      code: { type: "string", pattern: "^[A-Z]+$" },
      kind: { enum: ["a", "b"] },
      version: { const: 2 },
      count: { type: "integer", minimum: 1, maximum: 10 },
      ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      tags: { type: "array", minItems: 1, maxItems: 2, items: { type: "string" } },
      note: { type: ["string", "null"] },
      nested: { type: "object", properties: { flag: { type: "boolean" } }, required: ["flag"] },
    },
    required: ["name"],
  });

  it("accepts a valid value, and unknown properties when not forbidden", () => {
    expect(
      check({
        name: "abc",
        code: "XY",
        kind: "a",
        version: 2,
        count: 3,
        ratio: 0.5,
        tags: ["t"],
        note: null,
        nested: { flag: true },
        other: 1,
      }),
    ).toEqual([]);
  });

  it("reports each keyword with its path", () => {
    expect(
      check({
        name: "a",
        code: "xy",
        kind: "c",
        version: 3,
        count: 2.5,
        ratio: 1,
        tags: [1, "b", "c"],
        note: 4,
        nested: {},
      }),
    ).toEqual([
      "name: must have at least 2 character(s)",
      "code: must match the pattern ^[A-Z]+$",
      'kind: expected one of "a" | "b"',
      "version: expected 2",
      "count: expected integer, received number (not an integer)",
      "ratio: must be < 1",
      "tags: must have at most 2 item(s)",
      "tags[0]: expected string, received integer",
      "note: expected string or null, received integer",
      "nested.flag: required, but missing",
    ]);
  });

  it("reports the root, missing required properties and upper bounds", () => {
    expect(check([])).toEqual(["(root): expected object, received array"]);
    expect(check({})).toEqual(["name: required, but missing"]);
    expect(check({ name: "abcdef", count: 11, tags: [] })).toEqual([
      "name: must have at most 5 character(s)",
      "count: must be <= 10",
      "tags: must have at least 1 item(s)",
    ]);
  });

  it("counts characters, not UTF-16 units", () => {
    expect(check({ name: "😀😀" })).toEqual([]);
  });

  it("forbids unknown properties with additionalProperties: false", () => {
    const strict = createJsonSchemaCheck({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
    expect(strict({ surprise: 1 })).toEqual(["surprise: unknown property; allowed: none"]);
  });
});
