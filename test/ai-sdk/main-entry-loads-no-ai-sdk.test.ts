import { execFileSync, spawnSync } from "node:child_process";
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

describe("what the approval gates of the two SDKs load", () => {
  it("importing them, or making a gate, loads neither SDK: each is an optional peer, loaded where used", () => {
    const agentsSdk = /\/node_modules\/@openai\//;
    const main = modulesResolvedBy('await import("./src/index.ts");');
    expect(main.filter((url) => agentsSdk.test(url))).toEqual([]);
    const made = modulesResolvedBy(
      'const { approvalGate } = await import("./src/openai-agents/index.ts"); const ai = await import("./src/ai-sdk/index.ts"); approvalGate({ tools: [] }); ai.approvalGate({ tools: {} });',
    );
    expect(made.filter((url) => agentsSdk.test(url) || aiSdkPackage.test(url))).toEqual([]);
  });
});

describe("a process using aiSdkModel", () => {
  it("exits once its calls are done: no timer or listener of the adapter keeps it alive", () => {
    const script = `
const { aiSdkModel } = await import("./src/ai-sdk/index.ts");
const { MockLanguageModelV3, convertArrayToReadableStream } = await import("ai/test");
const finish = { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } };
const model = new MockLanguageModelV3({
  doGenerate: { content: [{ type: "text", text: "whole" }], finishReason: finish.finishReason, usage: finish.usage, warnings: [] },
  doStream: async () => ({ stream: convertArrayToReadableStream([{ type: "text-delta", id: "t", delta: "streamed" }, finish]) }),
});
const signal = new AbortController().signal;
const adapter = aiSdkModel(model, { timeoutMs: 600000 });
const whole = await adapter.complete({ messages: [{ role: "user", content: "Hi" }] }, { signal });
const stream = adapter.stream({ messages: [{ role: "user", content: "Hi" }] }, { signal });
for await (const _event of stream) break;
const streamed = await adapter.stream({ messages: [{ role: "user", content: "Hi" }] }, { signal }).finalCompletion();
console.log(whole.choices[0].message.content, streamed.choices[0].message.content);`;
    const result = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: repositoryRoot,
        encoding: "utf8",
        // A process held open by a ten-minute timer would be killed here and fail the test.
        timeout: 60_000,
      },
    );
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("whole streamed");
    expect(result.status).toBe(0);
  });
});
