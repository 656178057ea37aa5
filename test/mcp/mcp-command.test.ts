import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnswerChoice } from "../../src/simulators/messaging/answer-mode.js";
import { type Simulators, startSimulators } from "../../src/simulators/start-simulators.js";
import { finished, runSwitchyard, spawnScript } from "../cli/spawn-switchyard.js";
import { initializeBody, secretsOf, stdioHostTransport, textOf } from "./mcp-test-kit.js";

const answers: AnswerChoice[] = [];
let simulators: Simulators;
let client: Client;
/** What the command wrote to stderr so far. */
let stderr: () => string = () => "";
/** The state directory of the commands started here: their audit log is in it. */
const stateDirectory = mkdtempSync(join(tmpdir(), "switchyard-mcp-command-"));

beforeAll(async () => {
  simulators = await startSimulators({
    messaging: { answer: () => answers.shift() ?? { option_id: "deny" } },
  });
  // The command reaches the test's simulators as it would real services.
  const started = stdioHostTransport(["src/cli/main.ts", "mcp", "--tools", "orders"], {
    SWITCHYARD_ORDERS_URL: simulators.orders.url,
    SWITCHYARD_ORDERS_TOKEN: simulators.orders.token,
    SWITCHYARD_MESSAGING_URL: simulators.messaging.url,
    SWITCHYARD_MESSAGING_TOKEN: simulators.messaging.token ?? "",
    SWITCHYARD_APPROVER_LINK: simulators.messaging.approverLinkId,
    SWITCHYARD_STATE_DIR: stateDirectory,
  });
  stderr = started.stderr;
  client = new Client({ name: "stdio-host", version: "1.0.0" });
  await client.connect(started.transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await simulators?.close();
  rmSync(stateDirectory, { recursive: true, force: true });
});

/** The run ids the command named on stderr for each approval decision, in order. */
function decidedRuns(output: string): string[] {
  return [
    ...output.matchAll(/^Approval \S+(?: \(\S+\))? for \S+: switchyard audit show (\S+)$/gm),
  ].map((match) => match[1]!);
}

describe("switchyard mcp over stdio, as a host starts it", () => {
  it("lists the order tools with their annotations, and says on stderr what it serves", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("list_orders")?.annotations).toEqual({ readOnlyHint: true });
    expect(byName.get("cancel_orders")?.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.has("send_notification")).toBe(false);
    expect(stderr()).toContain("Serving MCP over stdio");
    expect(stderr()).toContain("the person behind SWITCHYARD_APPROVER_LINK");
  });

  it("runs a read tool, and one approved deletion and one denied reach the service once", async () => {
    const read = (await client.callTool({
      name: "list_callbacks",
      arguments: {},
    })) as CallToolResult;
    expect(read.isError).toBeFalsy();
    const [first, second] = simulators.orders.state.callbacks;
    const deletions = () =>
      simulators.orders.requests.filter((request) => request.method === "DELETE");

    answers.push({ option_id: "approve" }, { option_id: "deny" });
    const approved = (await client.callTool({
      name: "delete_callbacks",
      arguments: { callback_ids: [first!.id] },
    })) as CallToolResult;
    const denied = (await client.callTool({
      name: "delete_callbacks",
      arguments: { callback_ids: [second!.id] },
    })) as CallToolResult;
    expect(approved.isError).toBeFalsy();
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain("approval_refused");
    expect(deletions()).toHaveLength(1);
    expect(deletions()[0]?.body).toEqual([first!.id]);
    for (const result of [read, approved, denied]) {
      for (const secret of secretsOf(simulators)) expect(textOf(result)).not.toContain(secret);
    }
    for (const secret of secretsOf(simulators)) expect(stderr()).not.toContain(secret);
  });

  it("leaves each decision in the audit trail, which switchyard audit verify and show read", async () => {
    // The calls above: one approved deletion and one denied, each a run of its own.
    expect(stderr()).toContain(`appended to the audit log ${join(stateDirectory, "audit.jsonl")}`);
    const runs = decidedRuns(stderr());
    expect(runs).toHaveLength(2);
    const env = { SWITCHYARD_STATE_DIR: stateDirectory };
    const verified = await runSwitchyard(["audit", "verify"], env);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain("2 decision(s)");
    const approved = await runSwitchyard(["audit", "show", runs[0]!], env);
    expect(approved.code).toBe(0);
    expect(approved.stdout.trim().split("\n")).toHaveLength(1);
    expect(approved.stdout).toMatch(/delete_callbacks {2}approved {2}by person/);
    const denied = await runSwitchyard(["audit", "show", runs[1]!], env);
    expect(denied.stdout).toMatch(/delete_callbacks {2}refused \(denied\) {2}by person/);
  });
});

describe("switchyard mcp --http", () => {
  it("serves over Streamable HTTP with the token from SWITCHYARD_MCP_TOKEN, until SIGTERM", async () => {
    const token = httpToken;
    const command = await startHttpCommand(["--approve", "deny"]);
    const output = command.output();
    const url = command.url.href;
    expect(output).not.toContain(token);
    expect(output).toContain("always denied by the messaging simulator (--approve deny)");
    const httpClient = new Client({ name: "http-host", version: "1" });
    await httpClient.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const { tools } = await httpClient.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["list_callbacks", "push_docs_files", "send_notification"]),
    );
    const denied = (await httpClient.callTool({
      name: "cancel_orders",
      arguments: { customer_identifiers: ["ORD-1"] },
    })) as CallToolResult;
    expect(JSON.parse(textOf(denied))).toMatchObject({ error: "approval_refused", code: "denied" });
    await httpClient.close();
    const { code, stdout } = await command.stop();
    expect(code).toBe(0);
    expect(stdout).toBe("");
  });

  it("answers a foreign Origin or Host 403, and serves those given with --allowed-origins and --allowed-hosts", async () => {
    const token = httpToken;
    const command = await startHttpCommand([
      "--approve",
      "deny",
      "--allowed-origins",
      "http://localhost:5173",
      "--allowed-hosts",
      "127.0.0.1,mcp.test",
    ]);
    const url = command.url.href;
    const ping = (origin: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          Authorization: `Bearer ${token}`,
          Origin: origin,
        },
        body: initializeBody,
      });
    const foreign = await ping("https://evil.example.com");
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    expect((await ping("http://localhost:5173")).status).toBe(200);
    const port = new URL(url).port;
    const withHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const outgoing = httpRequest(
          url,
          {
            method: "POST",
            headers: {
              Host: host,
              "Content-Type": "application/json",
              Accept: "application/json, text/event-stream",
              Authorization: `Bearer ${token}`,
            },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        outgoing.on("error", reject);
        outgoing.end(initializeBody);
      });
    expect(await withHost(`mcp.test:${port}`)).toBe(200);
    expect(await withHost(`localhost:${port}`)).toBe(403);
    expect((await command.stop()).code).toBe(0);
  });

  it("refuses --allowed-origins without --http, and an origin or a host that is not one", async () => {
    const stdio = await finished(
      spawnScript("src/cli/main.ts", ["mcp", "--allowed-origins", "http://localhost:5173"]),
    );
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("--allowed-origins applies to the HTTP server only");
    const wrong = await finished(
      spawnScript("src/cli/main.ts", [
        "mcp",
        "--http",
        "0",
        "--approve",
        "deny",
        "--allowed-origins",
        "localhost:5173/app",
      ]),
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      '--allowed-origins: "localhost:5173/app" is not an origin (scheme://host[:port], no path); give them comma-separated (e.g. --allowed-origins http://localhost:5173,https://app.example.com).',
    );
    expect(wrong.stdout).toBe("");
    const host = await finished(
      spawnScript("src/cli/main.ts", [
        "mcp",
        "--http",
        "0",
        "--approve",
        "deny",
        "--allowed-hosts",
        "127.0.0.1,mcp.test:8931",
      ]),
    );
    expect(host.code).toBe(2);
    expect(host.stderr).toContain(
      '--allowed-hosts: "mcp.test:8931" is not a host name without port; give them comma-separated (e.g. --allowed-hosts localhost,127.0.0.1,[::1],mcp.example.com).',
    );
  });

  it("refuses --approve browser|approve when the orders service is real", async () => {
    for (const approve of ["browser", "approve"]) {
      const {
        code,
        stderr: errors,
        stdout,
      } = await finished(
        spawnScript("src/cli/main.ts", ["mcp", "--approve", approve], {
          SWITCHYARD_ORDERS_URL: simulators.orders.url,
          SWITCHYARD_ORDERS_TOKEN: simulators.orders.token,
        }),
      );
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(errors).toContain(
        `--approve ${approve} lets the messaging simulator approve, and SWITCHYARD_ORDERS_URL names a real orders service: real actions need the real messaging service.`,
      );
    }
  });

  it("refuses --approve ask over stdio, whose input carries MCP", async () => {
    const {
      code,
      stderr: errors,
      stdout,
    } = await finished(spawnScript("src/cli/main.ts", ["mcp", "--approve", "ask"]));
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(errors).toContain("--approve ask needs this terminal's input");
  });
});

/**
 * Two calls deleting the first and the second callback, which the host's
 * user is asked about (and answers approve, then deny): their results, and
 * the bodies of the deletions that reached the orders service meanwhile.
 */
async function approveThenDeny(host: Client): Promise<{
  callbacks: string[];
  approved: CallToolResult;
  denied: CallToolResult;
  deleted: unknown[];
}> {
  const callbacks = simulators.orders.state.callbacks.map((callback) => callback.id);
  const deletions = () =>
    simulators.orders.requests.filter((request) => request.method === "DELETE");
  const before = deletions().length;
  const approved = (await host.callTool({
    name: "delete_callbacks",
    arguments: { callback_ids: [callbacks[0]!] },
  })) as CallToolResult;
  const denied = (await host.callTool({
    name: "delete_callbacks",
    arguments: { callback_ids: [callbacks[1]!] },
  })) as CallToolResult;
  return {
    callbacks,
    approved,
    denied,
    deleted: deletions()
      .slice(before)
      .map((request) => request.body),
  };
}

/** `switchyard mcp --approve elicit` started by a host over stdio, whose user answers with `answer`. */
async function elicitingHost(
  flags: readonly string[],
  answer: (message: string) => Promise<ElicitResult> | ElicitResult,
): Promise<{ host: Client; output: () => string }> {
  const { transport, stderr: output } = stdioHostTransport(
    ["src/cli/main.ts", "mcp", "--tools", "orders", ...flags],
    {
      SWITCHYARD_ORDERS_URL: simulators.orders.url,
      SWITCHYARD_ORDERS_TOKEN: simulators.orders.token,
      SWITCHYARD_STATE_DIR: stateDirectory,
    },
  );
  const host = new Client(
    { name: "elicit-host", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  host.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params.message));
  await host.connect(transport);
  return { host, output };
}

describe("switchyard mcp --approve elicit over stdio", () => {
  it("asks the host's user through elicitation and runs the call once they approve", async () => {
    const messages: string[] = [];
    const decisions = ["approve", "deny"];
    const { host, output } = await elicitingHost(["--approve", "elicit"], (message) => {
      messages.push(message);
      return { action: "accept", content: { decision: decisions.shift() ?? "deny" } };
    });
    try {
      expect(output()).toContain("asked of the MCP host's user");
      expect(output()).toContain("who has 10 minutes to answer each");
      const { callbacks, approved, denied, deleted } = await approveThenDeny(host);
      expect(approved.isError).toBeFalsy();
      expect(denied.isError).toBe(true);
      expect(deleted).toHaveLength(1);
      expect(messages).toHaveLength(2);
      expect(messages[0]).toContain("Tool: delete_callbacks");
      expect(messages[0]).toContain(callbacks[0]!);
      expect(decidedRuns(output())).toHaveLength(2);
    } finally {
      await host.close();
    }
  });

  it("waits --elicitation-timeout for the host's user, then does not run the call", async () => {
    const { host, output } = await elicitingHost(
      ["--approve", "elicit", "--elicitation-timeout", "2s"],
      // The host's user never answers.
      () => new Promise<ElicitResult>(() => {}),
    );
    try {
      expect(output()).toContain("who has 2 seconds to answer each");
      const callbacks = simulators.orders.state.callbacks.map((callback) => callback.id);
      const deletions = () =>
        simulators.orders.requests.filter((request) => request.method === "DELETE").length;
      const before = deletions();
      const expired = (await host.callTool({
        name: "delete_callbacks",
        arguments: { callback_ids: [callbacks.at(-1)!] },
      })) as CallToolResult;
      expect(expired.isError).toBe(true);
      expect(JSON.parse(textOf(expired))).toMatchObject({ error: "approval_expired" });
      expect(textOf(expired)).toContain("within 2 seconds");
      expect(deletions()).toBe(before);
      expect(output()).toMatch(
        /^Approval expired for delete_callbacks: switchyard audit show \S+$/m,
      );
    } finally {
      await host.close();
    }
  });

  it("refuses --elicitation-timeout without --approve elicit, and one that is not a duration", async () => {
    const alone = await runSwitchyard(["mcp", "--elicitation-timeout", "5m"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("only --approve elicit asks: add --approve elicit");
    const wrong = await runSwitchyard(["mcp", "--approve", "elicit", "--elicitation-timeout", "5"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--elicitation-timeout needs a duration above zero");
    const endless = await runSwitchyard([
      "mcp",
      "--approve",
      "elicit",
      "--elicitation-timeout",
      "4w",
    ]);
    expect(endless.code).toBe(2);
    expect(endless.stderr).toContain("--elicitation-timeout can be at most 24 days");
  });
});

/** `switchyard mcp --http 0` started with `flags`, once it says where it listens. */
async function startHttpCommand(
  flags: readonly string[],
  env: Record<string, string> = {},
): Promise<{
  url: URL;
  output: () => string;
  stop: () => Promise<Awaited<ReturnType<typeof finished>>>;
}> {
  const child = spawnScript("src/cli/main.ts", ["mcp", "--http", "0", ...flags], {
    SWITCHYARD_MCP_TOKEN: httpToken,
    ...env,
  });
  const ended = finished(child);
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /Streamable HTTP at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on("exit", () => reject(new Error(`exited early: ${output}`)));
  });
  return {
    url: new URL(url),
    output: () => output,
    stop: async () => {
      child.kill("SIGTERM");
      return ended;
    },
  };
}

const httpToken = "token-from-the-environment-0123";

/**
 * An MCP host over HTTP whose user answers with `answer`. It never opens the
 * optional GET stream (its fetch answers every GET itself with 405, as the
 * spec lets a server do), so the question can only come on the call's own
 * POST stream; `requests` lists the methods it sent.
 */
async function elicitingHttpHost(
  url: URL,
  answer: (message: string) => Promise<ElicitResult> | ElicitResult,
): Promise<{ host: Client; transport: StreamableHTTPClientTransport; requests: string[] }> {
  const requests: string[] = [];
  const postOnly: typeof fetch = (input, init) => {
    const method = init?.method ?? "GET";
    requests.push(method);
    return method === "GET"
      ? Promise.resolve(new Response(null, { status: 405 }))
      : fetch(input, init);
  };
  const host = new Client(
    { name: "elicit-http-host", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  host.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params.message));
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: postOnly,
    requestInit: { headers: { Authorization: `Bearer ${httpToken}` } },
  });
  await host.connect(transport);
  return { host, transport, requests };
}

const elicitEnvironment = () => ({
  SWITCHYARD_ORDERS_URL: simulators.orders.url,
  SWITCHYARD_ORDERS_TOKEN: simulators.orders.token,
  SWITCHYARD_STATE_DIR: stateDirectory,
});

describe("switchyard mcp --http --approve elicit", () => {
  it("asks the host's user on the call's own stream, runs what they approve and not what they deny", async () => {
    const command = await startHttpCommand(
      ["--tools", "orders", "--approve", "elicit"],
      elicitEnvironment(),
    );
    const messages: string[] = [];
    const decisions = ["approve", "deny"];
    const { host, requests, transport } = await elicitingHttpHost(command.url, (message) => {
      messages.push(message);
      return { action: "accept", content: { decision: decisions.shift() ?? "deny" } };
    });
    try {
      expect(command.output()).toContain("asked of the MCP host's user");
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const { callbacks, approved, denied, deleted } = await approveThenDeny(host);
      expect(approved.isError).toBeFalsy();
      expect(denied.isError).toBe(true);
      expect(JSON.parse(textOf(denied))).toMatchObject({
        error: "approval_refused",
        code: "denied",
      });
      expect(deleted).toEqual([[callbacks[0]!]]);
      expect(messages).toHaveLength(2);
      expect(messages[0]).toContain("Tool: delete_callbacks");
      expect(decidedRuns(command.output())).toHaveLength(2);
      // Nothing reached the host but on the POSTs of its calls.
      expect(requests.filter((method) => method === "GET").length).toBeLessThanOrEqual(1);
    } finally {
      await host.close();
      expect((await command.stop()).code).toBe(0);
    }
  });

  it("waits --elicitation-timeout, sending progress, then does not run the call", async () => {
    const command = await startHttpCommand(
      ["--tools", "orders", "--approve", "elicit", "--elicitation-timeout", "2s"],
      elicitEnvironment(),
    );
    // The host's user never answers.
    const { host } = await elicitingHttpHost(
      command.url,
      () => new Promise<ElicitResult>(() => {}),
    );
    try {
      expect(command.output()).toContain("who has 2 seconds to answer each");
      const callbacks = simulators.orders.state.callbacks.map((callback) => callback.id);
      const deletions = () =>
        simulators.orders.requests.filter((request) => request.method === "DELETE").length;
      const before = deletions();
      const progress: string[] = [];
      const expired = (await host.callTool(
        { name: "delete_callbacks", arguments: { callback_ids: [callbacks.at(-1)!] } },
        CallToolResultSchema,
        { onprogress: (update) => progress.push(update.message ?? "") },
      )) as CallToolResult;
      expect(expired.isError).toBe(true);
      expect(JSON.parse(textOf(expired))).toMatchObject({ error: "approval_expired" });
      expect(textOf(expired)).toContain("within 2 seconds");
      expect(progress[0]).toMatch(/^Waiting for a person to approve: /);
      expect(deletions()).toBe(before);
      expect(command.output()).toMatch(
        /^Approval expired for delete_callbacks: switchyard audit show \S+$/m,
      );
    } finally {
      await host.close();
      await command.stop();
    }
  });

  it("ends a session on DELETE, refusing its waiting call, and tells a host without a session what to send", async () => {
    const command = await startHttpCommand(
      ["--tools", "orders", "--approve", "elicit"],
      elicitEnvironment(),
    );
    let asked: () => void = () => {};
    const question = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const { host, transport } = await elicitingHttpHost(command.url, () => {
      asked();
      // The host's user is still reading when the session ends.
      return new Promise<ElicitResult>(() => {});
    });
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(command.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          Authorization: `Bearer ${httpToken}`,
          ...headers,
        },
        body: JSON.stringify(body),
      });
    try {
      const sessionless = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      expect(sessionless.status).toBe(400);
      expect(
        ((await sessionless.json()) as { error: { message: string } }).error.message,
      ).toContain(
        "This server keeps sessions: send an initialize request first, then the Mcp-Session-Id header",
      );
      const callbacks = simulators.orders.state.callbacks.map((callback) => callback.id);
      const deletions = () =>
        simulators.orders.requests.filter((request) => request.method === "DELETE").length;
      const before = deletions();
      const call = host.callTool({
        name: "delete_callbacks",
        arguments: { callback_ids: [callbacks[0]!] },
      });
      call.catch(() => {});
      await question;
      const sessionId = transport.sessionId!;
      await transport.terminateSession();
      // The session's end aborted the waiting call: the command's trail says so, and nothing ran.
      const refusal = /^Approval refused \(aborted\) for delete_callbacks: /m;
      while (!refusal.test(command.output())) await delay(50);
      expect(deletions()).toBe(before);
      const ended = await post(
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        { "Mcp-Session-Id": sessionId, "Mcp-Protocol-Version": "2025-11-25" },
      );
      expect(ended.status).toBe(404);
      expect(((await ended.json()) as { error: { message: string } }).error.message).toContain(
        "Session not found",
      );
    } finally {
      await host.close().catch(() => {});
      await command.stop();
    }
  });
});

describe("switchyard mcp --approve browser over stdio", () => {
  it("waits for the answer given on the simulator's inbox page", async () => {
    const { transport, stderr: output } = stdioHostTransport(
      ["src/cli/main.ts", "mcp", "--tools", "orders", "--approve", "browser"],
      {},
    );
    const browserHost = new Client({ name: "browser-host", version: "1.0.0" });
    await browserHost.connect(transport);
    try {
      const inboxUrl = /inbox page (http:\/\/\S+)/.exec(output())?.[1];
      expect(inboxUrl).toBeDefined();
      const listed = (await browserHost.callTool({
        name: "list_callbacks",
        arguments: {},
      })) as CallToolResult;
      const callbackId = (listed.structuredContent as { callbacks: Array<{ id: string }> })
        .callbacks[0]!.id;
      const call = browserHost.callTool({
        name: "delete_callbacks",
        arguments: { callback_ids: [callbackId] },
      }) as Promise<CallToolResult>;
      // The person opens the inbox, sees the question and approves it.
      let html = "";
      while (!/\/interactions\/([^"]+)"/.test(html)) {
        await delay(50);
        html = await (await fetch(inboxUrl!)).text();
      }
      const action = /action="([^"]*\/interactions\/[^"]+)"/.exec(html)![1]!;
      const token = /name="token" value="([^"]+)"/.exec(html)![1]!;
      const origin = new URL(inboxUrl!).origin;
      const answered = await fetch(new URL(action, origin), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin },
        body: new URLSearchParams({ token, option_id: "approve" }),
        redirect: "manual",
      });
      expect(answered.status).toBeLessThan(400);
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain(callbackId);
    } finally {
      await browserHost.close();
    }
  });
});
