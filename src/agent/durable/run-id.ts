import { randomBytes } from "node:crypto";

const runIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * True for ids safe as one file name on every system: 1 to 128 letters,
 * digits, `_`, `.` and `-`, starting with a letter or digit.
 */
export function isRunId(value: unknown): value is string {
  return typeof value === "string" && runIdPattern.test(value) && !value.includes("..");
}

/** Why `value` is not a run id, in words that say how to fix it; undefined when it is one. */
export function findRunIdProblem(value: unknown): string | undefined {
  if (isRunId(value)) return undefined;
  return `run id ${JSON.stringify(value) ?? String(value)} is not valid: use 1 to 128 letters, digits, "_", "." or "-", starting with a letter or digit (no "..")`;
}

/** A new run id, sortable by creation time: `run_20250512T093000Z_1a2b3c4d`. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `run_${stamp}_${randomBytes(4).toString("hex")}`;
}
