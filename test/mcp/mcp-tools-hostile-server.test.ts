import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  type Tool as McpToolDefinition,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { mcpTools } from "../../src/mcp/index.js";
import { ScriptedApprover } from "../../src/testing/scripted-approver.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { toolMessages } from "./mcp-test-kit.js";

/** What the server's tools were really called with. */
let calls: Array<{ tool: string; arguments: unknown }> = [];
const clients: Client[] = [];

afterEach(async () => {
  calls = [];
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/**
 * A server built on the SDK's low-level `Server`, which sends whatever the
 * test hands it: tool definitions with any schema, any `nextCursor`, any
 * result.
 */
async function connectTo(server: {
  listTools: (cursor: string | undefined) => ListToolsResult;
  callTool?: (name: string, args: unknown) => CallToolResult;
}): Promise<Client> {
  const mcpServer = new Server(
    { name: "hostile", version: "6.6.6" },
    { capabilities: { tools: {} } },
  );
  mcpServer.setRequestHandler(ListToolsRequestSchema, (request) =>
    server.listTools(request.params?.cursor),
  );
  mcpServer.setRequestHandler(CallToolRequestSchema, (request) => {
    calls.push({ tool: request.params.name, arguments: request.params.arguments });
    return (
      server.callTool?.(request.params.name, request.params.arguments) ?? {
        content: [{ type: "text", text: `ran ${request.params.name}` }],
      }
    );
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcpServer.connect(serverTransport);
  const client = new Client({ name: "switchyard-agent", version: "1.0.0" });
  await client.connect(clientTransport);
  clients.push(client);
  return client;
}

function tool(name: string, inputSchema: Record<string, unknown> = {}): McpToolDefinition {
  return { name, inputSchema: { type: "object", ...inputSchema } };
}

async function thrownBy(promise: Promise<unknown>): Promise<ConfigurationError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigurationError);
  return error as ConfigurationError;
}

// In JavaScript's engine, "a" x 44 then "!" against ^(a+)+$ takes 2^44 steps: it never ends.
const catastrophic = "^(a+)+$";
const longArgument = `${"a".repeat(44)}!`;

describe("mcpTools: a server's patterns cannot stall the agent", () => {
  it("checks a catastrophic pattern and patternProperties in linear time, refusing the argument", async () => {
    const client = await connectTo({
      listTools: () => ({
        tools: [
          tool("lookup", {
            properties: { key: { type: "string", pattern: catastrophic } },
            patternProperties: { "^(x+x+)+y$": { type: "number" } },
          }),
        ],
      }),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "lookup", arguments: { key: longArgument } }] },
      { toolCalls: [{ name: "lookup", arguments: { [`${"x".repeat(44)}y`]: "nan" } }] },
      { toolCalls: [{ name: "lookup", arguments: { key: "aaaa" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      approver: new ScriptedApprover(["approve"]),
      tools: await mcpTools(client),
    });
    const result = await agent.run("Look it up");
    expect(result.status).toBe("completed");
    const messages = toolMessages(result);
    expect(messages[0]).toMatchObject({
      error: "invalid_arguments",
      issues: [`key: must match pattern "${catastrophic}"`],
    });
    expect(messages[1]).toMatchObject({
      error: "invalid_arguments",
      issues: [`${"x".repeat(44)}y: must be number`],
    });
    // A matching value still passes and runs.
    expect(messages[2]).toBe("ran lookup");
    expect(calls).toEqual([{ tool: "lookup", arguments: { key: "aaaa" } }]);
  });

  it("refuses a tool whose pattern the linear-time engine cannot compile, naming tool and pattern", async () => {
    const client = await connectTo({
      listTools: () => ({
        tools: [
          tool("plain", { properties: { id: { type: "string", pattern: "^[a-z]+$" } } }),
          tool("lookaround", { properties: { id: { type: "string", pattern: "^(?=a)\\w+$" } } }),
          tool("backreference", { patternProperties: { "^(a)\\1$": {} } }),
        ],
      }),
    });
    const error = await thrownBy(mcpTools(client, { serverName: "evil" }));
    expect(error.problems).toEqual([
      expect.stringMatching(
        /^MCP server "evil", tool "lookaround": the schema cannot be checked, so it is refused \(the pattern "\^\(\?=a\)\\\\w\+\$" cannot be checked in linear time .*lookahead, lookbehind and backreferences are not supported.*Leave the tool out with include/,
      ),
      expect.stringMatching(
        /^MCP server "evil", tool "backreference": .*the pattern "\^\(a\)\\\\1\$" cannot be checked in linear time/,
      ),
    ]);
    const usable = await mcpTools(client, { include: ["plain"] });
    expect(usable.map((each) => each.name)).toEqual(["plain"]);
  });

  it("takes a structured result without checking it against the server's outputSchema", async () => {
    const client = await connectTo({
      listTools: () => ({
        tools: [
          {
            ...tool("report"),
            annotations: { readOnlyHint: true },
            outputSchema: {
              type: "object",
              properties: { line: { type: "string", pattern: catastrophic } },
            },
          },
        ],
      }),
      callTool: () => ({
        content: [{ type: "text", text: longArgument }],
        structuredContent: { line: longArgument },
      }),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "report", arguments: {} }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      approver: new ScriptedApprover([]),
      tools: await mcpTools(client, { trusted: true }),
    });
    const result = await agent.run("Report");
    expect(result.status).toBe("completed");
    expect(toolMessages(result)).toEqual([{ line: longArgument }]);
  });
});

describe("mcpTools: a tool list that never ends", () => {
  it("stops at maxPages when every page has a fresh nextCursor", async () => {
    let pages = 0;
    const client = await connectTo({
      listTools: () => {
        pages += 1;
        return { tools: [tool(`tool_${pages}`)], nextCursor: `page-${pages}` };
      },
    });
    const error = await thrownBy(mcpTools(client, { serverName: "endless" }));
    expect(error.message).toBe(
      'MCP server "endless" has more than 100 pages of tools (maxPages); raise maxPages if it really has that many.',
    );
    expect(pages).toBe(100);
    pages = 0;
    await thrownBy(mcpTools(client, { serverName: "endless", maxPages: 3 }));
    expect(pages).toBe(3);
  });

  it("refuses a cursor sent a second time", async () => {
    const cursors: Array<string | undefined> = [];
    const client = await connectTo({
      listTools: (cursor) => {
        cursors.push(cursor);
        return {
          tools: [tool(`tool_${cursors.length}`)],
          nextCursor: cursor === "b" ? "a" : cursor === "a" ? "b" : "a",
        };
      },
    });
    const error = await thrownBy(mcpTools(client, { serverName: "loop" }));
    expect(error.message).toBe(
      'MCP server "loop" sent, with page 3 of its tools, a cursor it had sent before, so its list would never end; the server\'s pagination is broken.',
    );
    expect(cursors).toEqual([undefined, "a", "b"]);
  });

  it("stops at maxTools, and reads a list within the limits whole", async () => {
    const page = (from: number) =>
      Array.from({ length: 400 }, (_, index) => tool(`tool_${from + index}`));
    const client = await connectTo({
      listTools: (cursor) =>
        cursor === undefined
          ? { tools: page(0), nextCursor: "1" }
          : cursor === "1"
            ? { tools: page(400), nextCursor: "2" }
            : { tools: page(800) },
    });
    const error = await thrownBy(mcpTools(client, { serverName: "crowded" }));
    expect(error.message).toBe(
      'MCP server "crowded" lists more than 1000 tools (maxTools); raise maxTools if it really offers that many.',
    );
    expect(await mcpTools(client, { maxTools: 1200 })).toHaveLength(1200);
    await expect(mcpTools(client, { maxPages: 0, maxTools: "many" as never })).rejects.toThrow(
      /maxPages must be a positive integer; got 0[\s\S]*maxTools must be a positive integer; got "many"/,
    );
  });
});

describe("mcpTools: names from the server are only names", () => {
  it("asks before tools named after Object's methods, when needsApproval names another tool", async () => {
    const inherited = ["hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable"];
    const client = await connectTo({
      listTools: () => ({ tools: [tool("search"), ...inherited.map((name) => tool(name))] }),
    });
    const approver = new ScriptedApprover(["deny", "deny", "deny"]);
    const model = new ScriptedModel([
      { toolCalls: inherited.map((name) => ({ name, arguments: {} })) },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      approver,
      tools: await mcpTools(client, { needsApproval: { search: false } }),
    });
    const result = await agent.run("Try them");
    expect(approver.requests.map((request) => request.action.toolName).sort()).toEqual(
      [...inherited].sort(),
    );
    expect(toolMessages(result)).toEqual(
      inherited.map(() => expect.objectContaining({ error: "approval_refused", code: "denied" })),
    );
    expect(calls).toEqual([]);
  });
});
