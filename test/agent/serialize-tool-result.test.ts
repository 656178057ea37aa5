import { describe, expect, it } from "vitest";
import { serializeToolResult } from "../../src/agent/serialize-tool-result.js";
import { redactText, redactValue } from "../../src/internal/redact.js";

/** The three-pass serialization the one-pass one replaced: its text is the specification. */
function roundTrip(result: unknown): string {
  if (typeof result === "string") return redactText(result);
  if (result === undefined) return "null";
  const plain: unknown = JSON.parse(JSON.stringify(result) ?? "null");
  return JSON.stringify(redactValue(plain));
}

type Outcome = { text: string } | { thrown: string };

function outcome(serialize: (value: unknown) => string, value: unknown): Outcome {
  try {
    return { text: serialize(value) };
  } catch (error) {
    return { thrown: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY2NvdW50In0.c2lnbmF0dXJl";

/** A small seeded generator (mulberry32), so a failure names a value that can be rebuilt. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  return { next, pick };
}

const keys = [
  "name",
  "id",
  "url",
  "2",
  "10",
  "0",
  "token",
  "Authorization",
  "password",
  "api_key",
  "apiKey",
  "secret_phrase",
  "Set-Cookie",
  "encrypted_token",
  "note",
  "__proto__",
];

const strings = [
  "",
  "plain text",
  jwt,
  `prefix ${jwt} suffix`,
  "Bearer abcdefghijklmnopqrstuvwxyz0123",
  "the bearer token is invalid.",
  'quotes " and \\ backslashes\n',
  "unicode é ✓ 😀",
  "lone \ud800 surrogate",
];

class Point {
  x = 1;
  y = "eyJ.not-a-jwt";
}

/** A value of any kind a tool might return, `depth` levels deep at most. */
function randomValue(random: ReturnType<typeof randomSource>, depth: number): unknown {
  const kind = random.next();
  if (depth <= 0 || kind < 0.45) return randomLeaf(random);
  if (kind < 0.7) {
    const object: Record<string, unknown> = random.next() < 0.1 ? Object.create(null) : {};
    const size = Math.floor(random.next() * 5);
    for (let index = 0; index < size; index++) {
      Object.defineProperty(object, random.pick(keys), {
        value: randomValue(random, depth - 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  }
  if (kind < 0.85) {
    return Array.from({ length: Math.floor(random.next() * 4) }, () =>
      randomValue(random, depth - 1),
    );
  }
  if (kind < 0.9) {
    const replacement = randomValue(random, depth - 1);
    return { toJSON: () => replacement };
  }
  if (kind < 0.95) return JSON.parse(`{"__proto__": {"token": "x"}, "a": ${JSON.stringify(jwt)}}`);
  return new Map([["token", jwt]]);
}

function randomLeaf(random: ReturnType<typeof randomSource>): unknown {
  const leaves: Array<() => unknown> = [
    () => random.pick(strings),
    () => random.pick([0, -0, 1.5, 42, 1e21, Number.NaN, Infinity, -Infinity]),
    () => random.next() < 0.5,
    () => null,
    () => undefined,
    () => () => "a function",
    () => Symbol("a symbol"),
    () => new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
    () => new Date(Number.NaN),
    () => new String(random.pick(strings)),
    () => new Number(random.pick([3, Number.NaN])),
    () => new Boolean(false),
    () => new Point(),
    () => new URL("https://user:pass@example.test/path?q=1"),
    () => (random.next() < 0.15 ? 10n : "not a bigint"),
  ];
  return random.pick(leaves)();
}

describe("serializeToolResult", () => {
  it("gives the text of the stringify, parse, redact, stringify round trip", () => {
    const cases: unknown[] = [
      { a: 1, b: [1, "two", null, undefined, () => 3], c: { d: jwt } },
      { token: "", password: null, api_key: undefined, secret_phrase: 0, apiKey: Number.NaN },
      { token: { nested: "object" }, Authorization: [1, 2], password: true },
      { when: new Date(Date.UTC(2026, 0, 2)), invalid: new Date(Number.NaN) },
      { boxed: new String(jwt), empty: { token: new String("") }, count: new Number(2) },
      { "2": "b", "1": "a", z: "c", "10": "d" },
      JSON.parse('{"__proto__": {"a": 1}, "b": 2}'),
      JSON.parse('{"__proto__": "text", "b": 2}'),
      Object.assign(Object.create(null), { token: "abc", url: "https://x.test" }),
      [undefined, () => 1, Symbol("s"), new Point()],
      new Point(),
      { toJSON: () => ({ token: "from toJSON", text: jwt }) },
      { toJSON: () => undefined },
      () => "a function",
      Symbol("alone"),
      null,
      0,
      -0,
      Infinity,
      true,
      jwt,
      `Bearer ${jwt}`,
      new String("boxed at the root"),
      new Map([["token", "x"]]),
      [[[[{ token: "deep", keep: "yes" }]]]],
    ];
    for (const value of cases) {
      expect(outcome(serializeToolResult, value), String(JSON.stringify(value))).toEqual(
        outcome(roundTrip, value),
      );
    }
  });

  it("fails exactly as the round trip does: a BigInt anywhere, a cycle, a throwing toJSON", () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = { back: cyclic };
    const secretCycle: Record<string, unknown> = { name: "loop" };
    secretCycle.token = { back: secretCycle };
    const failing = [
      { count: 10n },
      { token: 10n },
      { token: { inside: 10n } },
      [1, [2, 10n]],
      cyclic,
      secretCycle,
      { token: { toJSON: () => 1n } },
      {
        toJSON: () => {
          throw new Error("toJSON failed");
        },
      },
    ];
    for (const value of failing) {
      const expected = outcome(roundTrip, value);
      expect(expected).toHaveProperty("thrown");
      expect(outcome(serializeToolResult, value)).toEqual(expected);
    }
  });

  it("matches the round trip on 3,000 random nested values", () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const value = randomValue(randomSource(seed), 4);
      const expected = outcome(roundTrip, value);
      const actual = outcome(serializeToolResult, value);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) {
        expect({ seed, actual }).toEqual({ seed, actual: expected });
      }
    }
  });

  it("keeps secrets out: secret-named fields and secret-shaped text", () => {
    const text = serializeToolResult({
      user: { name: "Ada", password: "hunter2", token: jwt },
      log: [`Authorization: Bearer ${jwt}`],
    });
    expect(JSON.parse(text)).toEqual({
      user: { name: "Ada", password: "[redacted]", token: "[redacted]" },
      log: ["Authorization: Bearer [redacted]"],
    });
  });
});
