import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { repositoryRoot } from "../cli/spawn-switchyard.js";

/**
 * Every module a fresh process resolves while running `code`, ES modules
 * included (the AI SDK packages are ES modules only, which the CommonJS
 * cache never lists): a resolve hook records each one.
 */
function modulesResolvedBy(code: string): string[] {
  const output = execFileSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const { registerHooks } = await import("node:module");
const resolved = [];
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); resolved.push(result.url); return result; } });
${code}
console.log(JSON.stringify(resolved));`,
    ],
    { cwd: repositoryRoot, encoding: "utf8" },
  );
  return JSON.parse(output.trim().split("\n").at(-1)!) as string[];
}

const aiSdkPackage = /\/node_modules\/(@ai-sdk\/[^/]+|ai)\//;

describe("what import('switchyard-agents') loads", () => {
  it("resolves no AI SDK package; switchyard-agents/ai-sdk loads @ai-sdk/provider when a model is made", () => {
    const main = modulesResolvedBy('await import("./src/index.ts");');
    expect(main.length).toBeGreaterThan(20);
    expect(main.filter((url) => aiSdkPackage.test(url))).toEqual([]);
    const made = modulesResolvedBy(
      'const { aiSdkModel } = await import("./src/ai-sdk/index.ts"); aiSdkModel({ specificationVersion: "v3", provider: "test", modelId: "test", supportedUrls: {}, doGenerate() {}, doStream() {} });',
    );
    expect(made.filter((url) => aiSdkPackage.test(url))).toEqual([
      expect.stringMatching(/\/node_modules\/@ai-sdk\/provider\//),
    ]);
  });
});
