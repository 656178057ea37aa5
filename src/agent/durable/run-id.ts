import { randomUUID } from "node:crypto";

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

/** The last second a run id was made in, and its stamp: most runs of a process share one. */
let lastStamp = { second: Number.NaN, text: "" };

/** A new run id, sortable by creation time: `run_20250512T093000Z_1a2b3c4d`. */
export function newRunId(now?: Date): string {
  // No Date made unless the second is new: most runs of a process share one.
  const second = Math.floor((now === undefined ? Date.now() : now.getTime()) / 1000);
  if (second !== lastStamp.second) {
    const text = new Date(second * 1000)
      .toISOString()
      .replace(/[-:]/g, "")
      .replace(/\.\d+Z$/, "Z");
    lastStamp = { second, text };
  }
  // A random UUID's first 8 hex digits: drawn from a pool of entropy, where
  // `randomBytes` asks the system for 4 bytes each time.
  return `run_${lastStamp.text}_${randomUUID().slice(0, 8)}`;
}
