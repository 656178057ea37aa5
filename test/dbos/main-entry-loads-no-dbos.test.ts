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

const dbosSdk = /[\\/]@dbos-inc[\\/]dbos-sdk[\\/]/;

describe("what import('switchyard-agents') loads", () => {
  it("loads no DBOS; switchyard-agents/dbos loads the DBOS SDK when a durable agent is built", () => {
    expect(
      modulesLoadedBy('await import("./src/index.ts");').filter((path) => dbosSdk.test(path)),
    ).toEqual([]);
    expect(
      modulesLoadedBy('await import("./src/dbos/index.ts");').filter((path) => dbosSdk.test(path)),
    ).toEqual([]);
    const built = modulesLoadedBy(
      'const { dbosAgent } = await import("./src/dbos/index.ts"); dbosAgent({ model: { complete: async () => ({ choices: [] }), stream: () => { throw new Error("unused"); } } }, { databaseUrl: "postgres://localhost:5432/none" });',
    );
    expect(built.some((path) => dbosSdk.test(path))).toBe(true);
  });
});
