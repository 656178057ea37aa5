import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../cli/spawn-switchyard.js";

/** The CommonJS modules a fresh process has loaded after running `code` (ESM imports of CommonJS included). */
function modulesLoadedBy(code: string): string[] {
  const output = execFileSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `${code}\nconst { createRequire } = await import("node:module");\nconsole.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`,
    ],
    { cwd: repositoryRoot, encoding: "utf8" },
  );
  return JSON.parse(output.trim().split("\n").at(-1)!) as string[];
}

describe("what import('switchyard-agents') loads", () => {
  it("loads neither the MCP SDK nor the JSON Schema validator; switchyard-agents/mcp loads the SDK when a server is made", () => {
    const main = modulesLoadedBy('await import("./src/index.ts");');
    expect(main.filter((path) => /[\\/](ajv|@modelcontextprotocol)[\\/]/.test(path))).toEqual([]);
    const imported = modulesLoadedBy('await import("./src/mcp/index.ts");');
    expect(imported.filter((path) => /[\\/]@modelcontextprotocol[\\/]/.test(path))).toEqual([]);
    const served = modulesLoadedBy(
      'const { createMcpServer } = await import("./src/mcp/index.ts"); createMcpServer({ tools: [], approver: undefined });',
    );
    expect(served.some((path) => /[\\/]@modelcontextprotocol[\\/]sdk[\\/]/.test(path))).toBe(true);
    expect(served.some((path) => /[\\/]ajv[\\/]/.test(path))).toBe(true);
  });
});
