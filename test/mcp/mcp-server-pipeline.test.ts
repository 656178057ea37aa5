import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Approver } from "../../src/agent/approver.js";
import { actionFingerprint } from "../../src/internal/canonical-json.js";
import { createMcpServer, type McpServerOptions } from "../../src/mcp/index.js";
import { ScriptedApprover } from "../../src/testing/scripted-approver.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { decidingApprover } from "../helpers/approver-verbs.js";
import { textOf } from "./mcp-test-kit.js";

// No known key shape: only the registry knows it is a secret.
const secret = "correct-horse-battery-staple-4417";
/** What the tools were really run with. */
let ran: string[] = [];
const clients: Client[] = [];

afterEach(async () => {
  ran = [];
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

const tools = [
  defineTool({
    name: "read_log",
    description: "Reads the service log: long, and it quotes the API key.",
    parameters: z.object({}),
    readOnly: true,
    execute: () => {
      ran.push("read_log");
      return `key=${secret}\n${"log line\n".repeat(50_000 / 9)}`;
    },
  }),
  defineTool({
    name: "read_config",
    description: "Reads the configuration, which holds the API key.",
    parameters: z.object({}),
    readOnly: true,
    execute: () => {
      ran.push("read_config");
      return { region: "eu-west-1", note: `rotate ${secret} monthly` };
    },
  }),
  defineTool({
    name: "delete_order",
    description: "Deletes an order.",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    execute: ({ id }) => {
      ran.push(`delete_order ${id}`);
      return `deleted ${id}`;
    },
  }),
];

/** The server, served to the SDK's own Client over a linked pair. */
async function host(
  approver: Approver | undefined,
  options: Partial<McpServerOptions> = {},
): Promise<Client> {
  const server = createMcpServer({
    tools,
    approver,
    secrets: [secret],
    maxToolResultChars: 4_000,
    ...options,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(clientTransport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe("createMcpServer runs each call through the agent's pipeline", () => {
  it("sends a long result with a registered secret redacted and cut to maxToolResultChars", async () => {
    const client = await host(undefined);
    const result = await call(client, "read_log");
    const text = textOf(result);
    expect(ran).toEqual(["read_log"]);
    expect(result.isError).toBeUndefined();
    expect(text).not.toContain(secret);
    expect(text.startsWith("key=[redacted]\nlog line\n")).toBe(true);
    expect(text).toHaveLength(4_000);
    expect(text).toMatch(/\[cut: this tool message had \d+ characters; the last \d+ were left out/);
  });

  it("redacts an object result's text and its structuredContent alike", async () => {
    const client = await host(undefined);
    const result = await call(client, "read_config");
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(result.structuredContent).toEqual({
      region: "eu-west-1",
      note: "rotate [redacted] monthly",
    });
  });

  it("keeps the approval gate: a denied call does not run, an approved one runs once", async () => {
    const approver = new ScriptedApprover(["deny", "approve"]);
    const client = await host(approver);
    const denied = await call(client, "delete_order", { id: "o-1" });
    expect(denied.isError).toBe(true);
    expect(JSON.parse(textOf(denied))).toMatchObject({ error: "approval_refused", code: "denied" });
    const approved = await call(client, "delete_order", { id: "o-2" });
    expect(textOf(approved)).toBe("deleted o-2");
    expect(ran).toEqual(["delete_order o-2"]);
    expect(approver.requests.map((request) => request.action.arguments)).toEqual([
      { id: "o-1" },
      { id: "o-2" },
    ]);
  });

  it("refuses an approval given for another action (fingerprint check), and a call with no approver", async () => {
    const approver = new ScriptedApprover([
      () => ({ outcome: "approved", fingerprint: `sha256:${"0".repeat(64)}` }),
    ]);
    const client = await host(approver);
    const mismatch = await call(client, "delete_order", { id: "o-3" });
    expect(mismatch.isError).toBe(true);
    expect(JSON.parse(textOf(mismatch))).toMatchObject({ code: "fingerprint_mismatch" });
    const nobody = await call(await host(undefined), "delete_order", { id: "o-4" });
    expect(JSON.parse(textOf(nobody))).toMatchObject({ code: "no_approver" });
    expect(ran).toEqual([]);
  });

  it("names each call's approval with an id of its own, minted by the agent: an approval never stands for another call", async () => {
    const asked: string[] = [];
    const approving = decidingApprover((action) => {
      asked.push(action.approvalId);
      return { outcome: "approved", fingerprint: action.fingerprint };
    });
    const client = await host(approving);
    expect(textOf(await call(client, "delete_order", { id: "o-5" }))).toBe("deleted o-5");
    expect(textOf(await call(client, "delete_order", { id: "o-5" }))).toBe("deleted o-5");
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatch(/\.[\w-]{22}$/);
    expect(new Set(asked).size).toBe(2);
  });

  it("runs a person's edit through the same pipeline: only the edit runs, once, and a rule that denies it holds", async () => {
    // Approves every question as changed to delete o-9, in one interaction.
    const editing = decidingApprover((action) => ({
      outcome: "approved",
      fingerprint: actionFingerprint(action.toolName, { id: "o-9" }, action.target),
      interactionId: "interaction-edit",
      editedArguments: { id: "o-9" },
    }));
    // The policy lets the person change a call before approving it.
    const client = await host(editing, { approvalPolicy: { edits: true } });
    const edited = await call(client, "delete_order", { id: "o-1" });
    expect(textOf(edited)).toContain("deleted o-9");
    expect(JSON.parse(textOf(edited))).toMatchObject({
      edited_by_person: true,
      asked_arguments: { id: "o-1" },
      ran_arguments: { id: "o-9" },
    });
    expect(ran).toEqual(["delete_order o-9"]);

    const guarded = await host(editing, {
      approvalPolicy: {
        edits: true,
        rules: [
          {
            name: "keep o-9",
            tool: "delete_order",
            decision: "deny",
            when: (args) => (args as { id: string }).id === "o-9",
          },
        ],
      },
    });
    const denied = await call(guarded, "delete_order", { id: "o-3" });
    expect(denied.isError).toBe(true);
    expect(JSON.parse(textOf(denied))).toMatchObject({ code: "policy_denied" });
    expect(ran).toEqual(["delete_order o-9"]);
  });
});
