import { describe, expect, it } from "vitest";
import { conformingValue } from "../../src/simulators/reasoner/conforming-value.js";
import { patternExample } from "../../src/simulators/reasoner/pattern-example.js";

describe("patternExample", () => {
  const patterns = [
    "^[A-Z]{3}-\\d{2}$",
    "^ord_[0-9a-f]{8}$",
    "^(?:foo|bar)+\\.(com|org)$",
    "^[^a-z\\s]{2,4}@x$",
    "^\\w+\\s\\W\\.?$",
    "^(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])$",
    "^\\u00e9\\x41\\p{L}+$",
    "^a*b+c?d{0,2}e{3,}$",
    "^[-+]?\\d*\\.\\d+([eE][-+]?\\d+)?$",
    "colour|color",
  ];
  for (const pattern of patterns) {
    it(`spells a string that /${pattern}/u matches`, () => {
      expect(patternExample(pattern)).toMatch(new RegExp(pattern, "u"));
    });
  }

  it("ends on unterminated groups and names instead of looping", () => {
    for (const pattern of ["(?<name", "\\k<name", "[abc", "(ab", "a{2"]) {
      expect(typeof patternExample(pattern)).toBe("string");
    }
  });
});

describe("conformingValue", () => {
  it("gives the same value for the same schema every time", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    expect(conformingValue(schema)).toEqual(conformingValue(structuredClone(schema)));
    expect(conformingValue(schema)).toEqual({ ok: true, value: { a: "simulated" } });
  });

  it("tries another branch when the first would match two branches of a oneOf", () => {
    const schema = {
      oneOf: [{ type: "integer" }, { type: "integer", minimum: 0 }, { type: "string" }],
    };
    expect(conformingValue(schema)).toEqual({ ok: true, value: "simulated" });
  });

  it("says why when the schema is not valid or cannot be met", () => {
    const invalid = conformingValue({ type: "object", minProperties: "two" });
    expect(invalid).toMatchObject({ ok: false });
    expect(!invalid.ok && invalid.problem).toContain("not a valid JSON Schema");
    const endless = conformingValue({
      $defs: {
        node: {
          type: "object",
          properties: { next: { $ref: "#/$defs/node" } },
          required: ["next"],
        },
      },
      $ref: "#/$defs/node",
    });
    expect(!endless.ok && endless.problem).toContain("deeper than 32 levels");
    const selfReference = conformingValue({ $ref: "#" });
    expect(!selfReference.ok && selfReference.problem).toContain("deeper than 32 levels");
    const outside = conformingValue({ $ref: "https://example.com/schema.json" });
    expect(outside.ok).toBe(false);
    const dialect = conformingValue({ $schema: "http://json-schema.org/draft-04/schema#" });
    expect(!dialect.ok && dialect.problem).toContain("draft-04");
  });

  it("refuses what the validator cannot check, as the tools' validator does, instead of skipping it", () => {
    // A misspelt keyword and an unknown format would otherwise check nothing.
    const misspelt = conformingValue({
      type: "object",
      properties: { name: { type: "string", minLenght: 3 } },
    });
    expect(misspelt).toMatchObject({ ok: false });
    expect(!misspelt.ok && misspelt.problem).toContain('unknown keyword: "minLenght"');
    const format = conformingValue({ type: "string", format: "colour" });
    expect(!format.ok && format.problem).toContain('unknown format "colour"');
    expect(conformingValue(true)).toEqual({ ok: true, value: "simulated" });
    expect(conformingValue(false)).toMatchObject({ ok: false });
  });
});
