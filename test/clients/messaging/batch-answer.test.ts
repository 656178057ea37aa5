import { describe, expect, it } from "vitest";
import {
  formatItemSelection,
  maximumItemSelectionLength,
  parseItemSelection,
} from "../../../src/clients/messaging/batch-answer.js";

describe("parseItemSelection", () => {
  it("reads numbers separated by commas or spaces, then a note", () => {
    expect(parseItemSelection(" 3, 1  2 : only these ")).toEqual({
      ok: true,
      numbers: [1, 2, 3],
      note: "only these",
    });
    expect(parseItemSelection("1,3", [1, 2, 3])).toEqual({ ok: true, numbers: [1, 3] });
    expect(parseItemSelection(formatItemSelection([2, 4], "ok"))).toEqual({
      ok: true,
      numbers: [2, 4],
      note: "ok",
    });
  });

  it("refuses what is not a list of numbers, saying where", () => {
    expect(parseItemSelection("1,,3")).toEqual({
      ok: false,
      problem: expect.stringContaining('"," at character 3 where an action number should be'),
    });
    expect(parseItemSelection("1,")).toMatchObject({ ok: false });
    expect(parseItemSelection("all")).toMatchObject({ ok: false });
    expect(parseItemSelection("1 2x")).toEqual({
      ok: false,
      problem: expect.stringContaining('"x" at character 4 after the number 2'),
    });
    expect(parseItemSelection("1,4", [1, 2])).toEqual({
      ok: false,
      problem: "the question has no action numbered 4 (it asks about 1, 2)",
    });
  });

  it("answers at once for text that made the old pattern backtrack forever", () => {
    // Numbers separated by runs of spaces, then a character that fits nowhere.
    const answer = `1${"   1".repeat(17)}!`;
    const read = parseItemSelection(answer);
    expect(read).toEqual({
      ok: false,
      problem: expect.stringContaining(`"!" at character ${answer.length} after the number 1`),
    });
    const longer = `1${"   1".repeat(500)}!`;
    expect(parseItemSelection(longer)).toMatchObject({ ok: false });
  });

  it("refuses an answer over the length cap before reading it, naming the limit", () => {
    const answer = `1: ${"a".repeat(maximumItemSelectionLength)}`;
    expect(parseItemSelection(answer)).toEqual({
      ok: false,
      problem: `the answer is ${answer.length} characters long, more than the ${maximumItemSelectionLength} an answer choosing actions may have`,
    });
  });
});
