import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type CallToolResult,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { createMcpServer, type McpServerOptions } from "../../src/mcp/index.js";
import { JsonlAuditLog } from "../../src/stores/jsonl-audit-log.js";
import { deleteOrderTool, textOf } from "./mcp-test-kit.js";

let directory: string;
const clients: Client[] = [];
const ran: string[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "switchyard-mcp-audit-"));
});

afterEach(async () => {
  ran.length = 0;
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await rm(directory, { recursive: true, force: true });
});

const secret = "audit-secret-value-90210";

const tools = [deleteOrderTool(ran)];

/** A host whose user gives these answers, in order; `"silent"` never answers. */
async function host(
  options: Partial<McpServerOptions>,
  answers: (ElicitResult | "silent")[] = [],
): Promise<Client> {
  const server = createMcpServer({ tools, approver: "elicitation", ...options });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client(
    { name: "audit-host", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, () => {
    const answer = answers.shift() ?? { action: "decline" };
    return answer === "silent" ? new Promise<ElicitResult>(() => {}) : answer;
  });
  await client.connect(clientTransport);
  clients.push(client);
  return client;
}

async function deleteOrder(client: Client, id: string): Promise<CallToolResult> {
  return (await client.callTool({ name: "delete_order", arguments: { id } })) as CallToolResult;
}

describe("createMcpServer records every approval decision once", () => {
  it("appends approved, denied, expired and policy-allowed decisions to auditLog and hands each to onApprovalDecided", async () => {
    const auditLog = new JsonlAuditLog({ path: join(directory, "audit.jsonl") });
    const handed: ApprovalAuditRecord[] = [];
    const client = await host(
      {
        auditLog,
        onApprovalDecided: (record) => {
          handed.push(record);
        },
        elicitationTimeoutMs: 300,
        secrets: [secret],
        approvalPolicy: {
          rules: [
            {
              name: "test orders",
              tool: "delete_order",
              when: (args) => (args as { id: string }).id.startsWith("TEST-"),
              decision: "allow",
            },
          ],
        },
      },
      [
        { action: "accept", content: { decision: "approve", note: `ok ${secret}` } },
        { action: "accept", content: { decision: "deny" } },
        "silent",
      ],
    );
    const approved = await deleteOrder(client, "ORD-1");
    const denied = await deleteOrder(client, "ORD-2");
    const expired = await deleteOrder(client, "ORD-3");
    const allowed = await deleteOrder(client, "TEST-4");
    expect([approved, denied, expired, allowed].map((result) => result.isError === true)).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(ran).toEqual(["ORD-1", "TEST-4"]);

    const verification = await auditLog.verify();
    expect(verification.intact).toBe(true);
    const summary = (record: ApprovalAuditRecord) => [
      record.action,
      record.outcome,
      record.decidedBy,
      record.code ?? record.rule,
    ];
    expect(verification.records.map(summary)).toEqual([
      ["delete_order", "approved", "person", undefined],
      ["delete_order", "refused", "person", "denied"],
      ["delete_order", "expired", "expiry", undefined],
      ["delete_order", "approved", "policy", "test orders"],
    ]);
    expect(handed).toEqual(verification.records);
    // Each call is a run of its own: one record under each run id, none without one.
    const runIds = verification.records.map((record) => record.runId);
    expect(new Set(runIds).size).toBe(4);
    for (const runId of runIds) expect(runId).toEqual(expect.any(String));
    expect(verification.records[0]).toMatchObject({
      approvedBy: "the MCP host's user",
      approverLink: "mcp-client",
    });
    expect(JSON.stringify(verification.records)).not.toContain(secret);
  });

  it("records the gate's refusal when there is nobody to ask, and the call does not run", async () => {
    const handed: ApprovalAuditRecord[] = [];
    const client = await host({
      approver: undefined,
      onApprovalDecided: (record) => {
        handed.push(record);
      },
    });
    const result = await deleteOrder(client, "ORD-5");
    expect(result.isError).toBe(true);
    expect(ran).toEqual([]);
    expect(handed.map((record) => [record.outcome, record.decidedBy, record.code])).toEqual([
      ["refused", "gate", "no_approver"],
    ]);
  });

  it("does not run an approved call whose record cannot be appended", async () => {
    const client = await host(
      {
        auditLog: {
          append: () => Promise.reject(new Error("disk full")),
        },
      },
      [{ action: "accept", content: { decision: "approve" } }],
    );
    const result = await deleteOrder(client, "ORD-6");
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({ code: "audit_not_recorded" });
    expect(ran).toEqual([]);
  });

  it("says what is wrong with an auditLog, an onApprovalDecided or a wait that is not one", () => {
    const create = () =>
      createMcpServer({
        tools,
        approver: "elicitation",
        auditLog: {} as never,
        onApprovalDecided: "log it" as never,
        elicitationTimeoutMs: 30 * 86_400_000,
        progressIntervalMs: 0,
      });
    expect(create).toThrow(ConfigurationError);
    let problems: readonly string[] = [];
    try {
      create();
    } catch (error) {
      problems = (error as ConfigurationError).problems;
    }
    expect(problems).toEqual([
      expect.stringContaining("progressIntervalMs"),
      "elicitationTimeoutMs must be at most 2147483647 (about 24 days).",
      "auditLog must have an append(record) method (e.g. a JsonlAuditLog).",
      "onApprovalDecided must be a function that receives each audit record.",
    ]);
  });
});
