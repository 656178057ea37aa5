import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/internal/iso-timestamp.js";

describe("isoTimestamp", () => {
  it("is toISOString's text for any time, in a second it formatted before or not", () => {
    const time = fc.oneof(
      fc.integer({ min: -62_198_755_200_000, max: 253_402_300_799_999 }),
      // A fraction of a millisecond, on either side of 1970: a Date cuts it towards zero.
      fc.double({ min: -5_000, max: 5_000, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(time, { minLength: 1, maxLength: 8 }), fc.nat(999), (times, step) => {
        for (const ms of times) {
          // The time itself, then one in the same second (the kept text), then the next millisecond.
          for (const at of [ms, ms - (ms % 1000) + step, ms + 1]) {
            expect(isoTimestamp(at)).toBe(new Date(at).toISOString());
          }
        }
      }),
    );
  });

  it("writes years past 9999 and before 0 as toISOString does", () => {
    for (const at of [253_402_300_800_000, -62_198_755_200_001, 8_640_000_000_000_000]) {
      expect(isoTimestamp(at)).toBe(new Date(at).toISOString());
    }
  });
});
