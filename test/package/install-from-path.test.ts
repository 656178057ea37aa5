import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repository = fileURLToPath(new URL("../../", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * A user's project installs Switchyard from a local path and imports it by
 * name: the `exports` map, the built files and the type declarations must
 * all line up.
 */
describe("the package installed from a local path", () => {
  let project: string;

  beforeAll(() => {
    execFileSync(npm, ["run", "build"], { cwd: repository, stdio: "pipe" });
    project = mkdtempSync(join(tmpdir(), "switchyard-user-"));
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "user-project", version: "1.0.0", type: "module", private: true }),
    );
    execFileSync(npm, ["install", "--no-audit", "--no-fund", "--offline", repository], {
      cwd: project,
      stdio: "pipe",
    });
  }, 180_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it("imports Agent, ReasonerClient and defineTool at run time", () => {
    const script = [
      'import { Agent, ReasonerClient, defineTool, ConfigurationError } from "switchyard";',
      'import { ScriptedModel } from "switchyard/testing";',
      'import { startSimulators } from "switchyard/simulators";',
      "const tool = defineTool({ name: 'ping', description: 'Ping', parameters: { type: 'object', properties: {} }, execute: async () => 'pong' });",
      "const agent = new Agent({ model: new ScriptedModel([{ text: 'hi' }]), tools: [tool] });",
      "const result = await agent.run('hello');",
      "let refused = false;",
      "try { new ReasonerClient({ url: 'http://example.com', apiKey: 'k' }); } catch (error) { refused = error instanceof ConfigurationError; }",
      "console.log(JSON.stringify({ status: result.status, output: result.output, refused, simulators: typeof startSimulators }));",
    ].join("\n");
    writeFileSync(join(project, "main.mjs"), script);
    const output = execFileSync(process.execPath, ["main.mjs"], { cwd: project, encoding: "utf8" });
    expect(JSON.parse(output)).toEqual({
      status: "completed",
      output: "hi",
      refused: true,
      simulators: "function",
    });
  });

  it("type-checks a TypeScript user of the package", () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: "ES2022",
          types: [],
        },
      }),
    );
    writeFileSync(
      join(project, "user.ts"),
      [
        'import { Agent, ReasonerClient, defineTool, type RunResult } from "switchyard";',
        'import { z } from "zod";',
        "const tool = defineTool({ name: 'echo', description: 'Echo', parameters: z.object({ text: z.string() }), execute: async ({ text }) => text.toUpperCase() });",
        "const model = new ReasonerClient({ url: 'https://reasoner.example/v1/chat/completions', apiKey: 'k' });",
        "const agent = new Agent({ model, tools: [tool] });",
        "export async function main(): Promise<RunResult> { return agent.run('hi'); }",
        'import type { ModelRequest } from "switchyard/model";',
        'import { orderToolNames } from "switchyard/tools";',
        "export const request: ModelRequest = { messages: [{ role: 'user', content: orderToolNames[0] }] };",
      ].join("\n"),
    );
    // zod comes with the package's dependencies; the user's file imports it too.
    execFileSync(
      npm,
      ["install", "--no-audit", "--no-fund", "--offline", join(repository, "node_modules", "zod")],
      { cwd: project, stdio: "pipe" },
    );
    const tsc = join(repository, "node_modules", "typescript", "bin", "tsc");
    const result = execFileSync(process.execPath, [tsc, "-p", "."], {
      cwd: project,
      encoding: "utf8",
    });
    expect(result).toBe("");
  }, 180_000); // npm and tsc on a shared machine can take minutes
});
