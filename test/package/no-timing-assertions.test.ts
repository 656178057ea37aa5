import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// Tests never assert on elapsed time (a loaded machine makes them flaky, and
// a fast one makes them prove nothing): a run that resolves while its model
// or tool never settles shows it did not wait; benchmarks in bench/ measure.
const testRoot = new URL("../", import.meta.url).pathname;
const clockInExpect = /expect\([^;]*\b(Date\.now|performance\.now|process\.hrtime)\b/;
const elapsedInExpect = /expect\(\s*(elapsed|duration|took)\w*\s*\)/i;

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      return entry.name === "fixtures" || entry.name === "node_modules" ? [] : testFiles(path);
    }
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("tests", () => {
  it("never assert on elapsed time", () => {
    const offending = testFiles(testRoot).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, index) =>
          clockInExpect.test(line) || elapsedInExpect.test(line)
            ? [`${relative(testRoot, file)}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(offending).toEqual([]);
  });
});
