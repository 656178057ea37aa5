import { describe, expect, it } from "vitest";
import { WireRecord } from "../../src/clients/messaging/wire-record.js";
import { buildListQuery } from "../../src/clients/orders/build-list-query.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { resolveStreamStyle } from "../../src/simulators/reasoner/stream-style.js";

// Names from outside (a model's arguments, a service's answer, an option)
// are looked up and written as own properties only: `__proto__`,
// `constructor` and `toString` are names like any other.
describe("names from outside are only names", () => {
  it("sends a filter named __proto__ as a filter, not as the query's prototype", () => {
    const params = JSON.parse('{"limit": 5, "__proto__": ["a", "b"], "constructor": "c"}');
    const query = buildListQuery(params);
    expect(Object.entries(query)).toEqual([
      ["limit", 5],
      ["__proto__", ["a", "b"]],
      ["constructor", "c"],
    ]);
  });

  it("keeps a service's field named __proto__ among the extras", () => {
    const answer = JSON.parse('{"id": "i1", "__proto__": {"id": "forged"}, "toString": 1}');
    const record = new WireRecord(answer, []);
    expect(record.id("id")).toBe("i1");
    const extras = record.extras();
    expect(Object.getPrototypeOf(extras)).toBe(null);
    expect(Object.entries(extras)).toEqual([
      ["__proto__", { id: "forged" }],
      ["toString", 1],
    ]);
  });

  it("refuses a chunking preset named after a property every object inherits", () => {
    for (const name of ["constructor", "toString", "hasOwnProperty"]) {
      expect(() => resolveStreamStyle(name as never)).toThrow(ConfigurationError);
    }
  });
});
