import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import type { ApprovalPolicy } from "../../src/agent/approval/approval-policy.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { mcpTools } from "../../src/mcp/index.js";
import { ScriptedApprover } from "../../src/testing/scripted-approver.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { toolMessages } from "./mcp-test-kit.js";

/** What the server's tools were really called with. */
let calls: Array<{ tool: string; arguments: unknown }> = [];
const clients: Client[] = [];

/** An MCP server built with the SDK's own McpServer: one annotated read tool, one unannotated tool. */
function notesServer(): McpServer {
  const server = new McpServer({ name: "notes-server", version: "2.1.0" });
  const notes = new Map([["n1", "Ship the order on Monday."]]);
  server.registerTool(
    "read_note",
    {
      description: "Reads a note by its id.",
      inputSchema: { id: z.string().regex(/^n\d+$/) },
      outputSchema: { id: z.string(), text: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ id }) => {
      calls.push({ tool: "read_note", arguments: { id } });
      const text = notes.get(id) ?? "";
      return { content: [{ type: "text", text }], structuredContent: { id, text } };
    },
  );
  server.registerTool(
    "delete_note",
    {
      description: "Deletes a note.",
      inputSchema: { id: z.string().regex(/^n\d+$/), reason: z.string().min(3).optional() },
    },
    async ({ id }) => {
      calls.push({ tool: "delete_note", arguments: { id } });
      notes.delete(id);
      return { content: [{ type: "text", text: `deleted ${id}` }] };
    },
  );
  server.registerTool(
    "archive_note",
    {
      description: "Archives a note; it can be restored.",
      inputSchema: { id: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    async ({ id }) => {
      calls.push({ tool: "archive_note", arguments: { id } });
      return { content: [{ type: "text", text: `archived ${id}` }], isError: id === "n9" };
    },
  );
  return server;
}

async function connect(server: McpServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "switchyard-agent", version: "1.0.0" });
  await client.connect(clientTransport);
  clients.push(client);
  return client;
}

afterEach(async () => {
  calls = [];
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe("mcpTools: an MCP server's tools in an Agent", () => {
  it("runs a read tool of a trusted server without asking, its structured result as JSON", async () => {
    const client = await connect(notesServer());
    const approver = new ScriptedApprover([]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "notes_read_note", arguments: { id: "n1" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      approver,
      tools: await mcpTools(client, { serverName: "notes", prefix: "notes_", trusted: true }),
    });
    const result = await agent.run("Read note n1");
    expect(result.status).toBe("completed");
    expect(calls).toEqual([{ tool: "read_note", arguments: { id: "n1" } }]);
    expect(approver.requests).toEqual([]);
    expect(toolMessages(result)).toEqual([{ id: "n1", text: "Ship the order on Monday." }]);
  });

  it("asks first for a tool the server does not mark read-only, binding server, tool and arguments", async () => {
    const client = await connect(notesServer());
    const approver = new ScriptedApprover(["deny", "approve"]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_note", arguments: { id: "n1" } }] },
      { toolCalls: [{ name: "delete_note", arguments: { id: "n1" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      approver,
      tools: await mcpTools(client, { serverName: "notes", trusted: true }),
    });
    const result = await agent.run("Delete note n1");
    expect(result.status).toBe("completed");
    expect(approver.requests).toHaveLength(2);
    const action = approver.requests[0]!.action;
    expect(action.arguments).toEqual({
      server: "notes",
      implementation: "notes-server@2.1.0",
      tool: "delete_note",
      arguments: { id: "n1" },
    });
    expect(action.description.summary).toBe("Run a tool of an MCP server with the arguments below");
    expect(action.description.details).toEqual([
      { label: "MCP server", value: "notes" },
      { label: "the server reports itself as", value: "notes-server@2.1.0" },
      { label: "tool", value: "delete_note" },
      { label: "arguments (JSON)", text: '{\n  "id": "n1"\n}' },
    ]);
    expect(action.description.irreversible).toBe(true);
    expect(toolMessages(result)[0]).toMatchObject({ error: "approval_refused", code: "denied" });
    expect(calls).toEqual([{ tool: "delete_note", arguments: { id: "n1" } }]);
    expect(toolMessages(result)[1]).toBe("deleted n1");
  });

  it("fingerprints the server: the same tool and arguments on another server is another action", async () => {
    const first = await mcpTools(await connect(notesServer()), { serverName: "notes-a" });
    const second = await mcpTools(await connect(notesServer()), { serverName: "notes-b" });
    const approver = new ScriptedApprover(["approve", "approve"]);
    const fingerprints: string[] = [];
    for (const tools of [first, second]) {
      const agent = new Agent({
        model: new ScriptedModel([
          { toolCalls: [{ name: "delete_note", arguments: { id: "n1" } }] },
          { text: "done" },
        ]),
        approver,
        tools,
      });
      await agent.run("Delete n1");
      fingerprints.push(approver.requests.at(-1)!.action.fingerprint);
    }
    expect(fingerprints[0]).not.toBe(fingerprints[1]);
  });

  it("gates every tool of an untrusted server, read-only claims included", async () => {
    const tools = await mcpTools(await connect(notesServer()));
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("read_note")?.needsApproval).toBe(true);
    expect(byName.get("read_note")?.readOnly).toBe(false);
    expect(byName.get("archive_note")?.needsApproval).toBe(true);
    const trusted = await mcpTools(await connect(notesServer()), { trusted: true });
    const archive = trusted.find((tool) => tool.name === "archive_note")!;
    // Trusted: destructiveHint false is believed (undoable) but the tool still asks, not being read-only.
    expect(archive.needsApproval).toBe(true);
    const check = archive.checkArguments({ id: "n1" });
    expect(check.success).toBe(true);
    const description = await archive.describeAction!(check.success ? check.data : undefined, {
      signal: new AbortController().signal,
      logger: undefined as never,
      toolCallId: "c1",
    });
    expect(description.irreversible).toBe(false);
    // The user decides last, with a rule the agent's policy compiles.
    const ungated = await mcpTools(await connect(notesServer()), {
      needsApproval: { read_note: false },
    });
    expect(ungated.find((tool) => tool.name === "read_note")?.approvalRules).toEqual([
      { name: "mcpTools: needsApproval", decide: "allow" },
    ]);
  });

  it("needsApproval is a rule of the agent's policy: named in the record of a call it lets run, outranked by a deny rule", async () => {
    const run = async (approvalPolicy?: ApprovalPolicy) => {
      const audited: ApprovalAuditRecord[] = [];
      const agent = new Agent({
        model: new ScriptedModel([
          { toolCalls: [{ name: "archive_note", arguments: { id: "n1" } }] },
          { text: "done" },
        ]),
        tools: await mcpTools(await connect(notesServer()), {
          serverName: "notes",
          needsApproval: { archive_note: false },
        }),
        ...(approvalPolicy ? { approvalPolicy } : {}),
        onApprovalDecided: (record) => {
          audited.push(record);
        },
      });
      const result = await agent.run("Archive n1");
      return { call: result.steps[0]?.toolCalls[0], audited };
    };
    const allowed = await run();
    expect(allowed.call?.status).toBe("succeeded");
    expect(allowed.call?.approval).toMatchObject({
      outcome: "approved",
      rule: "mcpTools: needsApproval",
    });
    expect(allowed.audited).toEqual([
      expect.objectContaining({ decidedBy: "policy", rule: "mcpTools: needsApproval" }),
    ]);
    expect(calls).toEqual([{ tool: "archive_note", arguments: { id: "n1" } }]);
    calls = [];
    const denied = await run({
      rules: [{ name: "no archiving", tool: "archive_note", decision: "deny" }],
    });
    expect(denied.call?.approval).toMatchObject({
      outcome: "refused",
      code: "policy_denied",
      rule: "no archiving",
    });
    expect(calls).toEqual([]);
  });

  it("names a needsApproval value that is neither a boolean nor a function", async () => {
    const client = await connect(notesServer());
    await expect(
      mcpTools(client, { serverName: "notes", needsApproval: { delete_note: "yes" as never } }),
    ).rejects.toThrow(
      'MCP server "notes": needsApproval.delete_note must be true, false or a function of the call, got string.',
    );
  });

  it("sends arguments the schema refuses back to the model in the validator's words, calling nothing", async () => {
    const client = await connect(notesServer());
    const approver = new ScriptedApprover([]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "delete_note", arguments: { id: "note-1", reason: "x" } }] },
      { text: "giving up" },
    ]);
    const agent = new Agent({ model, approver, tools: await mcpTools(client) });
    const result = await agent.run("Delete note-1");
    expect(toolMessages(result)[0]).toMatchObject({
      error: "invalid_arguments",
      issues: ['id: must match pattern "^n\\d+$"', "reason: must NOT have fewer than 3 characters"],
    });
    expect(approver.requests).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("fails a call the server answers with isError, with its text", async () => {
    const client = await connect(notesServer());
    const model = new ScriptedModel([
      { toolCalls: [{ name: "archive_note", arguments: { id: "n9" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      approver: new ScriptedApprover(["approve"]),
      tools: await mcpTools(client, { serverName: "notes" }),
    });
    const result = await agent.run("Archive n9");
    expect(toolMessages(result)[0]).toMatchObject({ error: "tool_failed" });
    expect(String((toolMessages(result)[0] as { message?: unknown }).message)).toContain(
      'MCP server "notes", tool "archive_note" answered with an error: archived n9',
    );
  });

  it("refuses, naming them, tools whose schema cannot be checked and names it does not know", async () => {
    const client = await connect(oddServer());
    await expect(mcpTools(client, { include: ["missing"] })).rejects.toThrow(ConfigurationError);
    const error = (await mcpTools(client).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as ConfigurationError;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.problems).toEqual([
      expect.stringMatching(
        /^MCP server "odd", tool "postcode": the schema cannot be checked.*unknown format "postcode".*Leave the tool out with include/,
      ),
    ]);
    const usable = await mcpTools(client, { include: ["plain"] });
    expect(usable.map((tool) => tool.name)).toEqual(["plain"]);
  });
});

/** A server with a usable tool and one whose schema uses a format no validator knows. */
function oddServer(): McpServer {
  const server = new McpServer({ name: "odd", version: "1" });
  server.registerTool("plain", { inputSchema: { a: z.string() } }, async () => ({
    content: [{ type: "text", text: "ok" }],
  }));
  server.registerTool(
    "postcode",
    { inputSchema: { code: z.string().meta({ format: "postcode" }) } },
    async () => ({ content: [{ type: "text", text: "ok" }] }),
  );
  return server;
}
