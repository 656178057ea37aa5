import { describe, expect, it } from "vitest";
import { actionFingerprint, canonicalJson } from "../../src/internal/canonical-json.js";
import { redactValue } from "../../src/internal/redact.js";

describe("canonicalJson and actionFingerprint", () => {
  it("sorts keys at every depth so key order does not matter", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    expect(actionFingerprint("t", { a: 1, b: 2 })).toBe(actionFingerprint("t", { b: 2, a: 1 }));
  });

  it("changes with any argument, and with the tool name", () => {
    const base = actionFingerprint("delete_callbacks", { callback_ids: ["a"] });
    expect(actionFingerprint("delete_callbacks", { callback_ids: ["a", "b"] })).not.toBe(base);
    expect(actionFingerprint("hold_callbacks", { callback_ids: ["a"] })).not.toBe(base);
    expect(base).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("tells different dates apart and keeps a __proto__ key", () => {
    expect(actionFingerprint("t", { before: new Date("2026-01-01T00:00:00Z") })).not.toBe(
      actionFingerprint("t", { before: new Date("2027-01-01T00:00:00Z") }),
    );
    const withProto = JSON.parse('{"__proto__": {"x": 1}, "a": 1}');
    expect(canonicalJson(withProto)).toBe('{"__proto__":{"x":1},"a":1}');
    expect(actionFingerprint("t", withProto)).not.toBe(actionFingerprint("t", { a: 1 }));
  });

  it("refuses values JSON cannot represent instead of collapsing them to {}", () => {
    expect(() => canonicalJson({ ids: new Set(["a"]) })).toThrow(
      /ids: a Set has no faithful JSON form/,
    );
    expect(() => canonicalJson({ map: new Map() })).toThrow(/Map/);
    expect(() => canonicalJson({ n: 1n })).toThrow(/bigint/);
  });

  it("redactValue keeps a __proto__ key as data", () => {
    const value = JSON.parse('{"__proto__": {"token": "abc"}, "a": 1}');
    const redacted = redactValue(value) as Record<string, unknown>;
    expect(Object.keys(redacted)).toEqual(["__proto__", "a"]);
    expect(JSON.stringify(redacted)).toBe('{"__proto__":{"token":"[redacted]"},"a":1}');
  });
});
