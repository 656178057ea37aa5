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
    warnings.push(`${warning.name}: ${warning.message}`);
  });
}

function expectNoWarnings(): void {
  const emitted = warnings.splice(0);
  expect(emitted, "process warnings were emitted (npm test would print them)").toEqual([]);
}

afterEach(expectNoWarnings);
afterAll(expectNoWarnings);
