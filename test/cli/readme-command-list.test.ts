import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { commandSpecs, runsActionSpecs } from "../../src/cli/command-specs.js";

/**
 * The code block under "## The command" in docs/command-line.md, the guide the
 * README sends users to for the command: the command list users read.
 */
function readmeCommandList(): string {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  if (!readme.includes("](docs/command-line.md)")) return "";
  const guide = readFileSync(new URL("../../docs/command-line.md", import.meta.url), "utf8");
  const section = guide.slice(guide.indexOf("## The command"));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  return block?.[1] ?? "";
}

describe("the command list the README links to (docs/command-line.md)", () => {
  const list = readmeCommandList();

  it("names every command and runs action", () => {
    expect(list).not.toBe("");
    for (const spec of [...commandSpecs, ...runsActionSpecs]) {
      expect(list, `switchyard ${spec.name}`).toContain(`switchyard ${spec.name}`);
    }
  });

  it("shows every flag of every command", () => {
    const missing = [...commandSpecs, ...runsActionSpecs].flatMap((spec) =>
      spec.options
        .filter((option) => option.name !== "help" && !list.includes(`--${option.name}`))
        .map((option) => `switchyard ${spec.name} --${option.name}`),
    );
    expect(missing).toEqual([]);
  });

  it("shows the approval modes each command takes, ask included for mcp", () => {
    for (const spec of commandSpecs) {
      const approve = spec.options.find((option) => option.name === "approve");
      if (!approve) continue;
      const line = list.split("\n").find((text) => text.startsWith(`switchyard ${spec.name} `));
      const shown = /--approve ([a-z|]+)/.exec(line ?? "")?.[1]?.split("|") ?? [];
      expect(shown.sort(), `switchyard ${spec.name}`).toEqual(approve.valueName!.split("|").sort());
    }
  });
});
