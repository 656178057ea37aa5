import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, repositoryRoot, spawnScript } from "../cli/spawn-switchyard.js";

/**
 * The server scenarios of the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`) that apply to `switchyard mcp`: it
 * offers tools and nothing else. docs/mcp.md lists the others and why they
 * do not apply.
 */
const scenarios = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

const conformanceBin = join(
  repositoryRoot,
  "node_modules/@modelcontextprotocol/conformance/dist/index.js",
);
const token = "conformance-token-0123456789abcdef";
let child: ReturnType<typeof spawnScript>;
let ended: ReturnType<typeof finished>;
let proxy: Server;
let proxyUrl: string;
let results: string;

/**
 * The suite's client sends no `Authorization` header, which every request
 * to `switchyard mcp --http` needs: this loopback proxy adds the token and
 * passes everything else through as sent, `Host` and `Origin` included, so
 * the server judges the suite's own headers.
 */
function startTokenProxy(target: () => URL): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    const upstream = httpRequest(
      target(),
      {
        method: incoming.method,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  results = await mkdtemp(join(tmpdir(), "switchyard-conformance-"));
  let mcpUrl: URL | undefined;
  proxy = await startTokenProxy(() => mcpUrl!);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
  child = spawnScript(
    "src/cli/main.ts",
    ["mcp", "--http", "0", "--approve", "deny", "--allowed-origins", new URL(proxyUrl).origin],
    { SWITCHYARD_MCP_TOKEN: token },
  );
  ended = finished(child);
  let output = "";
  mcpUrl = await new Promise<URL>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /Streamable HTTP at (http:\/\/\S+)/.exec(output);
      if (match) resolve(new URL(match[1]!));
    });
    child.on("exit", () => reject(new Error(`switchyard mcp exited early: ${output}`)));
  });
}, 60_000);

afterAll(async () => {
  child?.kill("SIGTERM");
  await ended;
  await new Promise<void>((resolve) => {
    proxy?.close(() => resolve());
    proxy?.closeAllConnections();
  });
  await rm(results, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** Every check the suite recorded for one scenario, from its `checks.json`. */
async function checksOf(directory: string): Promise<Check[]> {
  const checks: Check[] = [];
  for (const entry of await readdir(directory, { recursive: true })) {
    if (!entry.endsWith("checks.json")) continue;
    checks.push(...(JSON.parse(await readFile(join(directory, entry), "utf8")) as Check[]));
  }
  return checks;
}

describe("switchyard mcp --http, through the official MCP conformance suite", () => {
  it.each(scenarios)(
    "passes %s",
    async (scenario) => {
      const output = join(results, scenario);
      const run = await promisify(execFile)(
        process.execPath,
        [conformanceBin, "server", "--url", proxyUrl, "--scenario", scenario, "-o", output],
        { cwd: results },
      ).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
      const checks = await checksOf(output);
      expect(checks.length, `${run.stdout}\n${run.stderr}`).toBeGreaterThan(0);
      expect(
        checks.filter((check) => check.status !== "SUCCESS"),
        `${run.stdout}\n${run.stderr}`,
      ).toEqual([]);
      expect((run as { code?: number }).code ?? 0).toBe(0);
    },
    60_000,
  );
});
