import { describe, expect, it } from "vitest";
import { nextRecheckAt, nextRetryAt } from "../../../src/agent/durable/recheck-schedule.js";

const schedule = { firstMs: 1_000, capMs: 30_000 };
const now = Date.parse("2026-01-01T12:00:00Z");
const noJitter = () => 0;
const mostJitter = () => 1;

describe("nextRecheckAt", () => {
  it("asks soon about a new question, then waits as long as the run has waited, up to the cap", () => {
    const waitAfter = (waitedMs: number) =>
      nextRecheckAt(schedule, { sinceMs: now - waitedMs, nowMs: now }, noJitter).getTime() - now;
    expect([0, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 64_000, 3_600_000].map(waitAfter)).toEqual([
      1_000, 1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
  });

  it("spreads runs out by up to a quarter of the wait, never beyond the cap", () => {
    const at = (random: () => number) =>
      nextRecheckAt(schedule, { sinceMs: now - 3_600_000, nowMs: now }, random).getTime() - now;
    expect(at(mostJitter)).toBe(22_500);
    expect(at(() => 0.5)).toBe(26_250);
    expect(at(noJitter)).toBe(30_000);
  });

  it("looks just after the question expires, and soon once it has", () => {
    const sinceMs = now - 3_600_000;
    const soon = new Date(now + 5_000);
    expect(nextRecheckAt(schedule, { sinceMs, nowMs: now, expiresAt: soon }, noJitter)).toEqual(
      new Date(now + 6_000),
    );
    const past = new Date(now - 60_000);
    expect(nextRecheckAt(schedule, { sinceMs, nowMs: now, expiresAt: past }, noJitter)).toEqual(
      new Date(now + 1_000),
    );
    const late = new Date(now + 3_600_000);
    expect(nextRecheckAt(schedule, { sinceMs, nowMs: now, expiresAt: late }, noJitter)).toEqual(
      new Date(now + 30_000),
    );
  });
});

describe("nextRetryAt", () => {
  it("doubles the wait with each failure in a row, up to the cap", () => {
    const waitAfter = (attempts: number) =>
      nextRetryAt(schedule, { attempts, nowMs: now }, noJitter).getTime() - now;
    expect([1, 2, 3, 4, 5, 6, 50].map(waitAfter)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(nextRetryAt(schedule, { attempts: 2, nowMs: now }, mostJitter).getTime() - now).toBe(
      1_500,
    );
  });
});
