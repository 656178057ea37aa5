import { afterAll, afterEach, expect } from "vitest";

// `npm test` must print no process warnings (MaxListenersExceededWarning, a
// deprecation, an experimental feature) on any supported Node line: a
// warning emitted while a test file runs fails that test, naming it.
const key = Symbol.for("switchyard.test.warnings");
const registry = globalThis as { [key]?: string[] };
const warnings = registry[key] ?? [];
if (registry[key] === undefined) {
  registry[key] = warnings;
  process.on("warning", (warning) => {
    if (isDbosRecvRace(warning)) return;
    warnings.push(`${warning.name}: ${warning.message}`);
  });
}

/**
 * DBOS Transact 5.3's `recv` computes its last wait as `finishTime -
 * Date.now()` right after checking `now > finishTime`: when the clock ticks
 * between the two it sleeps for -1 ms, and Node warns. The wait still ends
 * on time; the warning is DBOS's (its system database's `recv`), not
 * Switchyard's, and only that one is let through.
 */
function isDbosRecvRace(warning: Error): boolean {
  return (
    warning.name === "TimeoutNegativeWarning" &&
    warning.message.startsWith("-1 is a negative number") &&
    (warning.stack ?? "").includes("@dbos-inc/dbos-sdk/dist/src/system_database.js")
  );
}

function expectNoWarnings(): void {
  const emitted = warnings.splice(0);
  expect(emitted, "process warnings were emitted (npm test would print them)").toEqual([]);
}

afterEach(expectNoWarnings);
afterAll(expectNoWarnings);
