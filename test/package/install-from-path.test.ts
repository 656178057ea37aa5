import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repository = fileURLToPath(new URL("../../", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Every file under `directory`, relative paths. */
function listFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1));
}

/**
 * A user's project installs Switchyard as it would be published (the
 * tarball `npm pack` makes) together with zod, and imports it by name: the
 * `exports` map, the built files and the type declarations must all line
 * up, and the package must carry what a published package owes its users.
 */
/** A user's project: `package.json` of the given module type, nothing installed yet. */
function makeProject(type: "module" | "commonjs"): string {
  const project = mkdtempSync(join(tmpdir(), `switchyard-user-${type}-`));
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: `user-${type}`, version: "1.0.0", type, private: true }),
  );
  return project;
}

/** The zod the tests use, installed into each project as a package of its own. */
const zodVersion = (
  JSON.parse(readFileSync(join(repository, "node_modules", "zod", "package.json"), "utf8")) as {
    version: string;
  }
).version;

/**
 * As a user would: `npm install switchyard-agents zod`. The tarball's
 * dependencies come from npm's cache, or the registry when not cached.
 * Returns what npm wrote to stderr (its warnings).
 */
function installPackage(project: string, tarball: string): string {
  const result = spawnSync(
    npm,
    ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, `zod@${zodVersion}`],
    { cwd: project, encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`npm install failed:\n${result.stderr}`);
  return result.stderr;
}

/** The packages installed under `nodeModules`, nested ones too (`name` or `@scope/name`). */
function installedPackages(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  const packages: string[] = [];
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const directories = entry.name.startsWith("@")
      ? readdirSync(join(nodeModules, entry.name)).map((name) => `${entry.name}/${name}`)
      : [entry.name];
    for (const name of directories) {
      if (!existsSync(join(nodeModules, name, "package.json"))) continue;
      packages.push(name, ...installedPackages(join(nodeModules, name, "node_modules")));
    }
  }
  return packages;
}

/** The bytes of every file under `directory`. */
function sizeOf(directory: string): number {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((total, entry) => total + statSync(join(entry.parentPath, entry.name)).size, 0);
}

let tarball: string;
let packDirectory: string;

beforeAll(() => {
  execFileSync(npm, ["run", "build"], { cwd: repository, stdio: "pipe" });
  packDirectory = mkdtempSync(join(tmpdir(), "switchyard-pack-"));
  const name = execFileSync(
    npm,
    ["pack", "--ignore-scripts", "--silent", "--pack-destination", packDirectory],
    { cwd: repository, encoding: "utf8" },
  )
    .trim()
    .split("\n")
    .pop() as string;
  tarball = join(packDirectory, name);
}, 180_000);

afterAll(() => {
  if (packDirectory) rmSync(packDirectory, { recursive: true, force: true });
});

describe("the package installed from its tarball", () => {
  let project: string;
  let installed: string;
  let installWarnings: string;

  beforeAll(() => {
    project = makeProject("module");
    installWarnings = installPackage(project, tarball);
    installed = join(project, "node_modules", "switchyard-agents");
  }, 180_000);

  it("is a small core install: with zod, under 30 packages and 20 MB, without pg or the MCP SDK", () => {
    const packages = installedPackages(join(project, "node_modules"));
    const megabytes = sizeOf(join(project, "node_modules")) / 1_000_000;
    console.info(
      `The core install (switchyard-agents and zod): ${packages.length} packages, ${megabytes.toFixed(1)} MB.`,
    );
    expect(packages).toContain("switchyard-agents");
    expect(packages).toContain("zod");
    expect(packages).not.toContain("pg");
    expect(packages).not.toContain("@modelcontextprotocol/sdk");
    expect(packages.length).toBeLessThan(30);
    expect(megabytes).toBeLessThan(20);
  });

  it("installs without a warning about its own scripts", () => {
    expect(installWarnings).not.toMatch(
      /switchyard-agents@[^\n]*\((prepare|install|postinstall|preinstall):/,
    );
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
    };
    expect(Object.keys(manifest.scripts ?? {})).not.toContain("prepare");
  });

  it("names the package to install when an optional peer (pg, the MCP SDK, the AI SDK's provider, the DBOS SDK) is missing", () => {
    writeFileSync(
      join(project, "peers.mjs"),
      [
        'import { PostgresRunStore } from "switchyard-agents/postgres";',
        'import { createMcpServer } from "switchyard-agents/mcp";',
        'import { aiSdkModel } from "switchyard-agents/ai-sdk";',
        'import { dbosAgent } from "switchyard-agents/dbos";',
        'import { ConfigurationError } from "switchyard-agents/errors";',
        "const messages = [];",
        "try { new PostgresRunStore({ connectionString: 'postgres://user:secret@localhost:5432/app' }); } catch (error) { messages.push([error instanceof ConfigurationError, error.message]); }",
        "try { createMcpServer({ tools: [], approver: undefined }); } catch (error) { messages.push([error instanceof ConfigurationError, error.message]); }",
        "try { aiSdkModel({ specificationVersion: 'v3', provider: 'p', modelId: 'm', supportedUrls: {}, doGenerate() {}, doStream() {} }); } catch (error) { messages.push([error instanceof ConfigurationError, error.message]); }",
        "try { dbosAgent({ model: { complete: async () => ({ choices: [] }), stream() {} } }, { databaseUrl: 'postgres://user:secret@localhost:5432/app' }); } catch (error) { messages.push([error instanceof ConfigurationError, error.message]); }",
        "console.log(JSON.stringify(messages));",
      ].join("\n"),
    );
    const output = execFileSync(process.execPath, ["peers.mjs"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toEqual([
      [true, expect.stringMatching(/^PostgresRunStore needs the package pg, .*: npm install pg$/)],
      [
        true,
        expect.stringMatching(
          /^createMcpServer needs the package @modelcontextprotocol\/sdk, .*: npm install @modelcontextprotocol\/sdk$/,
        ),
      ],
      [
        true,
        expect.stringMatching(
          /^aiSdkModel needs the package @ai-sdk\/provider, .*: npm install @ai-sdk\/provider$/,
        ),
      ],
      [
        true,
        expect.stringMatching(
          /^dbosAgent needs the package @dbos-inc\/dbos-sdk, .*: npm install @dbos-inc\/dbos-sdk$/,
        ),
      ],
    ]);
    const bin = join(project, "node_modules", ".bin", "switchyard");
    const mcp = spawnSync(bin, ["mcp"], { cwd: project, encoding: "utf8", input: "" });
    expect(mcp.stdout).toBe("");
    expect(mcp.stderr).toContain("npm install @modelcontextprotocol/sdk");
    expect(mcp.status).toBe(2);
  });

  it("ships every file the README and its guides point at, so their links resolve where the package is read", () => {
    const readme = readFileSync(join(installed, "README.md"), "utf8");
    // The guides that hold what the README points users to, each linked from it.
    const guides = [
      "docs/library.md",
      "docs/command-line.md",
      "docs/approvals.md",
      "docs/durable-runs.md",
    ];
    for (const guide of guides) expect(readme).toContain(`](${guide})`);
    const paths = ["README.md", ...guides].flatMap((document) => {
      const text = readFileSync(join(installed, document), "utf8");
      const linked = [...text.matchAll(/\]\(([^)#\s]+)[)#]/g)]
        .map((match) => match[1]!)
        .filter((path) => !/^[a-z]+:/.test(path))
        .map((path) => posix.join(posix.dirname(document), path));
      const named = [
        ...text.matchAll(/`((?:docs|examples|test|src|bench|scripts|\.ci)\/[^`\s]*)`/g),
      ].map((match) => match[1]!);
      return [...linked, ...named];
    });
    expect(paths).toContain("docs/inbox-page.png");
    expect(paths).toContain("examples/mcp-server.md");
    const missing = paths.filter(
      (path) => !path.includes("<") && !existsSync(join(installed, path)),
    );
    expect(missing).toEqual([]);
  });

  it("ships a LICENSE and no source map pointing at sources it does not ship", () => {
    const files = listFiles(installed);
    expect(files).toContain("LICENSE");
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
    expect(files.some((file) => file.endsWith(".js"))).toBe(true);
  });

  it("resolves zod to the user's own copy (a peer dependency), not one of its own", () => {
    expect(existsSync(join(project, "node_modules", "zod", "package.json"))).toBe(true);
    expect(existsSync(join(installed, "node_modules", "zod"))).toBe(false);
    const script = [
      'import { z } from "zod";',
      'import { defineTool } from "switchyard-agents";',
      "const tool = defineTool({ name: 'echo', description: 'Echo', parameters: z.object({ text: z.string().describe('What to echo') }), execute: async ({ text }) => text });",
      "console.log(JSON.stringify(tool.parameters));",
    ].join("\n");
    writeFileSync(join(project, "zod-user.mjs"), script);
    const output = execFileSync(process.execPath, ["zod-user.mjs"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(output).toContain("What to echo");
  });

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it("imports Agent, ReasonerClient and defineTool at run time", () => {
    const script = [
      'import { Agent, ReasonerClient, defineTool, ConfigurationError } from "switchyard-agents";',
      'import { ScriptedModel } from "switchyard-agents/testing";',
      'import { startSimulators } from "switchyard-agents/simulators";',
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

  it("gives one value per name across entry points, so instanceof holds between subpaths", () => {
    // The build bundles each entry point with shared chunks: a class the main
    // entry and a subpath both export must be one class, not two copies.
    const subpaths = Object.keys(
      (
        JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
          exports: Record<string, unknown>;
        }
      ).exports,
    ).filter((subpath) => subpath !== "." && subpath !== "./package.json");
    const script = [
      'const main = await import("switchyard-agents");',
      "const shared = [];",
      "const copies = [];",
      `for (const subpath of ${JSON.stringify(subpaths)}) {`,
      "  const entry = await import('switchyard-agents/' + subpath.slice(2));",
      "  for (const [name, value] of Object.entries(entry)) {",
      "    if (!(name in main)) continue;",
      "    shared.push(subpath + ' ' + name);",
      "    if (main[name] !== value) copies.push(subpath + ' ' + name);",
      "  }",
      "}",
      'const { ConfigurationError } = await import("switchyard-agents/errors");',
      "let refused = false;",
      "try { new main.ReasonerClient({ url: 'http://example.com', apiKey: 'k' }); } catch (error) { refused = error instanceof ConfigurationError; }",
      "console.log(JSON.stringify({ shared: shared.length, copies, refused }));",
    ].join("\n");
    writeFileSync(join(project, "entries.mjs"), script);
    const output = execFileSync(process.execPath, ["entries.mjs"], {
      cwd: project,
      encoding: "utf8",
    });
    const result = JSON.parse(output) as { shared: number; copies: string[]; refused: boolean };
    expect(result.copies).toEqual([]);
    expect(result.shared).toBeGreaterThan(10);
    expect(result.refused).toBe(true);
  });

  it("runs the command line from its bin", () => {
    const output = execFileSync(
      process.execPath,
      [join(project, "node_modules", ".bin", "switchyard"), "--help"],
      { cwd: project, encoding: "utf8" },
    );
    expect(output).toContain("Usage: switchyard <command>");
  });

  it("exports the examples, runs the README's snippet, and points switchyard examples at files it has", () => {
    writeFileSync(
      join(project, "examples.mjs"),
      [
        'import { createExampleServices, simulatorEndpoints } from "switchyard-agents/cli";',
        'import { startSimulators } from "switchyard-agents/simulators";',
        'import { orderReport } from "switchyard-agents/examples";',
        'const simulators = await startSimulators({ reasoner: { scenario: "order-report" } });',
        "const result = await orderReport",
        "  .createAgent(createExampleServices(simulatorEndpoints(simulators)))",
        "  .run(orderReport.defaultTask);",
        "console.log(JSON.stringify({ status: result.status, output: result.output }));",
        "await simulators.close();",
      ].join("\n"),
    );
    const output = execFileSync(process.execPath, ["examples.mjs"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toMatchObject({
      status: "completed",
      output: expect.stringMatching(/^There are 240 orders in total/),
    });

    const bin = join(project, "node_modules", ".bin", "switchyard");
    const listing = execFileSync(bin, ["examples"], { cwd: project, encoding: "utf8" });
    const command = /or on its own: node (\S+)<example>\.js/.exec(listing);
    expect(command?.[1]).toBe("node_modules/switchyard-agents/dist/examples/");
    const help = execFileSync(
      process.execPath,
      [join(project, command![1]!, "order-report.js"), "--help"],
      { cwd: project, encoding: "utf8" },
    );
    expect(help).toContain("The same as: switchyard run order-report");
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
        'import { Agent, ReasonerClient, defineTool, type RunResult } from "switchyard-agents";',
        'import { z } from "zod";',
        "const tool = defineTool({ name: 'echo', description: 'Echo', parameters: z.object({ text: z.string() }), execute: async ({ text }) => text.toUpperCase() });",
        "const model = new ReasonerClient({ url: 'https://reasoner.example/v1/chat/completions', apiKey: 'k' });",
        "const agent = new Agent({ model, tools: [tool] });",
        "export async function main(): Promise<RunResult> { return agent.run('hi'); }",
        'import type { ModelRequest } from "switchyard-agents/model";',
        'import { orderToolNames } from "switchyard-agents/tools";',
        "export const request: ModelRequest = { messages: [{ role: 'user', content: orderToolNames[0] }] };",
      ].join("\n"),
    );
    const tsc = join(repository, "node_modules", "typescript", "bin", "tsc");
    const result = execFileSync(process.execPath, [tsc, "-p", "."], {
      cwd: project,
      encoding: "utf8",
    });
    expect(result).toBe("");
  }, 180_000); // npm and tsc on a shared machine can take minutes
});

/**
 * The same application, as a CommonJS project (what `npm init -y` writes
 * today) and as an ES module project: each installs the tarball, is
 * type-checked by `tsc --strict` with module nodenext, compiled, and run by
 * the Node running the tests (`.ci/run` runs them on every supported line).
 */
describe.each(["commonjs", "module"] as const)("a %s application", (type) => {
  let project: string;

  beforeAll(() => {
    project = makeProject(type);
    installPackage(project, tarball);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "ES2022",
          strict: true,
          skipLibCheck: true,
          outDir: "out",
          types: [],
        },
        include: ["main.ts"],
      }),
    );
    writeFileSync(
      join(project, "main.ts"),
      [
        'import { Agent, ConfigurationError, defineTool, type RunResult } from "switchyard-agents";',
        'import { ScriptedModel } from "switchyard-agents/testing";',
        'import { z } from "zod";',
        "",
        "const shout = defineTool({",
        '  name: "shout",',
        '  description: "Says the text louder",',
        "  parameters: z.object({ text: z.string() }),",
        "  execute: async ({ text }) => text.toUpperCase(),",
        "});",
        "",
        "async function main(): Promise<void> {",
        "  const model = new ScriptedModel([",
        '    { toolCalls: [{ name: "shout", arguments: { text: "hello" } }] },',
        '    { text: "Done." },',
        "  ]);",
        "  const agent = new Agent({ model, tools: [shout] });",
        '  const result: RunResult = await agent.run("Shout hello.");',
        "  let refused = false;",
        "  try {",
        "    new Agent({ model, tools: [shout, shout] });",
        "  } catch (error) {",
        "    refused = error instanceof ConfigurationError;",
        "  }",
        "  const results = result.steps.flatMap((step) =>",
        '    step.toolCalls.map((call) => (call.status === "succeeded" ? call.result : call.status)),',
        "  );",
        "  console.log(JSON.stringify({ status: result.status, output: result.output, results, refused }));",
        "}",
        "",
        "void main();",
      ].join("\n"),
    );
  }, 180_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it("type-checks with tsc --strict, compiles to its module system, and runs", () => {
    const tsc = join(repository, "node_modules", "typescript", "bin", "tsc");
    const compiled = spawnSync(process.execPath, [tsc, "-p", "."], {
      cwd: project,
      encoding: "utf8",
    });
    expect(compiled.stdout + compiled.stderr).toBe("");
    expect(compiled.status).toBe(0);
    const emitted = readFileSync(join(project, "out", "main.js"), "utf8");
    expect(emitted).toContain(
      type === "commonjs" ? 'require("switchyard-agents")' : 'from "switchyard-agents"',
    );
    const output = execFileSync(process.execPath, [join("out", "main.js")], {
      cwd: project,
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toEqual({
      status: "completed",
      output: "Done.",
      results: ["HELLO"],
      refused: true,
    });
  });

  it("loads every subpath with require() (no top-level await anywhere in the package)", () => {
    const manifest = JSON.parse(
      readFileSync(join(project, "node_modules", "switchyard-agents", "package.json"), "utf8"),
    ) as { exports: Record<string, unknown> };
    writeFileSync(
      join(project, "require-all.cjs"),
      [
        `const subpaths = ${JSON.stringify(Object.keys(manifest.exports))};`,
        "const loaded = {};",
        "for (const subpath of subpaths) {",
        "  const name = 'switchyard-agents' + subpath.slice(1);",
        "  loaded[subpath] = typeof require(name);",
        "}",
        "console.log(JSON.stringify(loaded));",
      ].join("\n"),
    );
    const output = execFileSync(process.execPath, ["require-all.cjs"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(JSON.parse(output)).toEqual(
      Object.fromEntries(Object.keys(manifest.exports).map((subpath) => [subpath, "object"])),
    );
  });
});
