import { describe, expect, it } from "vitest";
import { duplicateJsonKey } from "../../src/internal/duplicate-json-key.js";

describe("duplicateJsonKey", () => {
  it("names a key one object gives twice, however it is spelled", () => {
    expect(duplicateJsonKey('{"a":1,"b":2,"a":3}')).toBe("a");
    expect(duplicateJsonKey('{"ids":[1],"\\u0069ds":[2]}')).toBe("ids");
    expect(duplicateJsonKey('{"outer":{"x":1,"x":2}}')).toBe("x");
    expect(duplicateJsonKey('[{"x":1},{"y":{"z":[{"q":1,"q":1}]}}]')).toBe("q");
  });

  it("finds none where each object names each key once", () => {
    expect(duplicateJsonKey('{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}')).toBeUndefined();
    // Strings that are values, in arrays or with escaped quotes, are not keys.
    expect(duplicateJsonKey('{"a":"a","b":["a","a"],"c":"say \\"a\\":1"}')).toBeUndefined();
    expect(duplicateJsonKey('["a","a"]')).toBeUndefined();
    expect(duplicateJsonKey('"a"')).toBeUndefined();
    expect(duplicateJsonKey("{}")).toBeUndefined();
  });
});
