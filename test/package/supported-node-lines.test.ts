import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repository = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(join(repository, path), "utf8");

/** The Node lines CI runs the whole suite on by default (`.ci/run`). */
function ciLines(): string[] {
  const match = /SWITCHYARD_CI_NODE_LINES:-([0-9 ]+)\}/.exec(read(".ci/run"));
  return match ? match[1]!.trim().split(/\s+/) : [];
}

describe("the supported Node lines, said the same everywhere", () => {
  it("CI runs the whole suite (the tarball tests included) on each line engines admits", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines;
    expect(engines.node).toBe(">=22.12");
    expect(ciLines()).toEqual(["22", "24", "26"]);
    const run = read(".ci/run");
    // Inside the loop over the lines: npm test, which runs test/package (the packed tarball).
    expect(run).toMatch(/for major in "\$\{lines\[@\]\}"; do[\s\S]*npm test[\s\S]*done/);
  });

  it("the README names the minimum and every line CI runs", () => {
    const readme = read("README.md");
    const lines = ciLines();
    const named = `Node ${lines.slice(0, -1).join(", ")} and ${lines.at(-1)}`;
    expect(readme).toContain(`Node 22.12 or newer; ${named} are supported`);
    const requirements = readme.slice(readme.indexOf("## Requirements"));
    expect(requirements.replace(/\s+/g, " ")).toContain(
      `Node 22.12 or newer: the maintained lines, ${named}, are supported and tested`,
    );
  });
});
