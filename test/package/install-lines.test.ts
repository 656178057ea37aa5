import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repository = fileURLToPath(new URL("../../", import.meta.url));
const packageName = (
  JSON.parse(readFileSync(join(repository, "package.json"), "utf8")) as { name: string }
).name;

/**
 * The documents users copy commands from: the README, the guides it sends
 * them to for installing and running, every file of examples/ and the
 * CopilotKit example's README.
 */
const documents = [
  "README.md",
  "docs/library.md",
  "docs/command-line.md",
  "docs/approvals.md",
  "docs/durable-runs.md",
  ...readdirSync(join(repository, "examples"), { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `examples/${entry.name}`),
  "examples/copilotkit/README.md",
];

/**
 * Every `npm install` / `npx` command in a document: in Markdown, the lines
 * of code blocks, inline code spans (joined across line breaks) and MCP host
 * entries (`"command": "npx"` with its `args`); in a source file, every line.
 */
function commandsIn(document: string, text: string): string[] {
  const pattern = /\b(?:npm (?:install|i|add)|npx)\b[^`\n#"]*/g;
  if (!document.endsWith(".md"))
    return text.split("\n").flatMap((line) => line.match(pattern) ?? []);
  const commands: string[] = [];
  for (const [, language, body] of text.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (language === "json") {
      const servers = (JSON.parse(body!) as { mcpServers?: Record<string, unknown> }).mcpServers;
      for (const server of Object.values(servers ?? {}) as {
        command?: string;
        args?: string[];
      }[]) {
        if (server.command === "npx") commands.push(["npx", ...(server.args ?? [])].join(" "));
      }
    } else {
      commands.push(...body!.split("\n").flatMap((line) => line.match(pattern) ?? []));
    }
  }
  const prose = text.replace(/```\w*\n[\s\S]*?```/g, "");
  for (const [, span] of prose.matchAll(/`([^`]+)`/g)) {
    commands.push(...(span!.replace(/\s+/g, " ").match(pattern) ?? []));
  }
  return commands.map((command) => command.trim());
}

/** The packages a command installs or runs: npm install's arguments, npx's -p or first argument. */
function packagesOf(command: string): string[] {
  const words = command.split(/\s+/).filter((word) => word !== "" && !/^[>|&;(]/.test(word));
  const withoutVersion = (name: string) => name.replace(/(?<=.)@.*$/, "");
  if (words[0] === "npm")
    return words
      .slice(2)
      .filter((word) => !word.startsWith("-"))
      .map(withoutVersion);
  const packages: string[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word === "-p" || word === "--package") packages.push(withoutVersion(words[++index] ?? ""));
    else if (word.startsWith("--package=")) packages.push(withoutVersion(word.slice(10)));
    else if (!word.startsWith("-")) {
      if (packages.length === 0) packages.push(withoutVersion(word));
      break;
    }
  }
  return packages;
}

describe("install and npx lines in the README, its guides and examples/", () => {
  const found = documents.flatMap((document) =>
    commandsIn(document, readFileSync(join(repository, document), "utf8"))
      .filter((command) => packagesOf(command).length > 0)
      .map((command) => ({ document, command, packages: packagesOf(command) })),
  );

  it("are found: the README's install line, the PostgreSQL one with its types, the MCP host entry and npx command", () => {
    const commands = found.map(({ command }) => command);
    expect(commands).toContain(`npm install ${packageName} zod`);
    expect(
      found.filter(({ document }) => document === "README.md").map(({ command }) => command),
    ).toContain(`npm install ${packageName} zod`);
    expect(
      found.some(
        ({ document, packages }) =>
          document === "docs/library.md" &&
          packages.includes("pg") &&
          packages.includes("@types/pg"),
      ),
    ).toBe(true);
    expect(found.some(({ document }) => document === "examples/mcp-server.md")).toBe(true);
    expect(packagesOf("npx -y -p a -p b@2 run x")).toEqual(["a", "b"]);
    expect(packagesOf("npx switchyard mcp")).toEqual(["switchyard"]);
  });

  it(`each name the package's own name, ${packageName}, never another switchyard`, () => {
    const wrong = found.filter(({ packages }) => !packages.includes(packageName));
    expect(wrong).toEqual([]);
    const lookAlikes = found.filter(({ packages }) =>
      packages.some((name) => /switchyard/i.test(name) && name !== packageName),
    );
    expect(lookAlikes).toEqual([]);
  });
});
