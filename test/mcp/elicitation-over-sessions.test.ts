import { setTimeout as delay } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import { createMcpServer, type McpServerOptions } from "../../src/mcp/index.js";
import { deleteOrderTool, type SessionEndpoint, serveMcpSessions, textOf } from "./mcp-test-kit.js";

/** What the tool was really run with. */
const ran: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  ran.length = 0;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const tools = [deleteOrderTool(ran)];

/** An application's own Streamable HTTP endpoint with sessions, serving the delete_order tool. */
async function serveWithSessions(
  options: Partial<McpServerOptions> = {},
): Promise<SessionEndpoint> {
  const endpoint = await serveMcpSessions(() =>
    createMcpServer({ tools, approver: "elicitation", ...options }),
  );
  cleanups.push(endpoint.close);
  return endpoint;
}

/**
 * A host that never opens the optional GET stream (the spec lets it): its
 * fetch answers every GET itself with 405, as a server without the stream
 * would, so all the server can reach it on is each POST's response.
 */
async function hostWithoutGetStream(
  endpoint: SessionEndpoint,
  answer: () => ElicitResult | Promise<ElicitResult>,
): Promise<{ client: Client; asked: number }> {
  const noGet: typeof fetch = (input, init) =>
    (init?.method ?? "GET") === "GET"
      ? Promise.resolve(new Response(null, { status: 405 }))
      : fetch(input, init);
  const client = new Client(
    { name: "post-only-host", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  const host = { client, asked: 0 };
  client.setRequestHandler(ElicitRequestSchema, () => {
    host.asked += 1;
    return answer();
  });
  await client.connect(new StreamableHTTPClientTransport(endpoint.url, { fetch: noGet }));
  cleanups.push(() => client.close());
  return host;
}

describe("the elicitation travels on the stream of the call it is about", () => {
  it("asks a host over HTTP with sessions that never opens the GET stream, and runs on approve", async () => {
    // Short, so that a question that never reaches the host ends the call quickly (expired).
    const endpoint = await serveWithSessions({ elicitationTimeoutMs: 5_000 });
    const host = await hostWithoutGetStream(endpoint, () => ({
      action: "accept",
      content: { decision: "approve" },
    }));
    const result = (await host.client.callTool({
      name: "delete_order",
      arguments: { id: "ORD-1" },
    })) as CallToolResult;
    expect(textOf(result)).toBe("deleted ORD-1");
    expect(result.isError).toBeFalsy();
    expect(host.asked).toBe(1);
    expect(ran).toEqual(["ORD-1"]);
    expect(endpoint.methods).not.toContain("GET");
  });

  it("refuses a call the host's user denies over such a host, and runs nothing", async () => {
    const endpoint = await serveWithSessions({ elicitationTimeoutMs: 5_000 });
    const host = await hostWithoutGetStream(endpoint, () => ({
      action: "accept",
      content: { decision: "deny" },
    }));
    const result = (await host.client.callTool({
      name: "delete_order",
      arguments: { id: "ORD-2" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({ code: "denied" });
    expect(host.asked).toBe(1);
    expect(ran).toEqual([]);
  });
});

describe("a person who reads for longer than the host's request timeout", () => {
  // The host gives up after 1 s without news; the person answers after 2.5 s.
  const hostTimeoutMs = 1_000;
  const readingMs = 2_500;

  it("keeps a host that resets its timeout on progress waiting, and the call runs", async () => {
    const records: ApprovalAuditRecord[] = [];
    const endpoint = await serveWithSessions({
      progressIntervalMs: 200,
      onApprovalDecided: (record) => {
        records.push(record);
      },
    });
    const host = await hostWithoutGetStream(endpoint, async () => {
      await delay(readingMs);
      return { action: "accept", content: { decision: "approve" } };
    });
    const progress: string[] = [];
    const result = await host.client.callTool(
      { name: "delete_order", arguments: { id: "ORD-3" } },
      CallToolResultSchema,
      {
        timeout: hostTimeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: (update) => progress.push(update.message ?? ""),
      },
    );
    expect(textOf(result as CallToolResult)).toBe("deleted ORD-3");
    expect(ran).toEqual(["ORD-3"]);
    expect(progress[0]).toBe(
      "Waiting for a person to approve: Delete one order: it is gone for good.",
    );
    expect(progress.slice(1)).toContain("Still waiting for the person's answer.");
    expect(records.map((record) => [record.action, record.outcome, record.decidedBy])).toEqual([
      ["delete_order", "approved", "person"],
    ]);
  });

  it("loses a host that does not reset its timeout: it gives up first, and the call does not run", async () => {
    const records: ApprovalAuditRecord[] = [];
    const endpoint = await serveWithSessions({
      progressIntervalMs: 200,
      onApprovalDecided: (record) => {
        records.push(record);
      },
    });
    let answered: () => void = () => {};
    const answeredLate = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const host = await hostWithoutGetStream(endpoint, async () => {
      await delay(readingMs);
      answered();
      return { action: "accept", content: { decision: "approve" } };
    });
    const call = host.client.callTool(
      { name: "delete_order", arguments: { id: "ORD-4" } },
      CallToolResultSchema,
      { timeout: hostTimeoutMs, onprogress: () => {} },
    );
    await expect(call).rejects.toSatisfy(
      (error) => error instanceof McpError && error.code === ErrorCode.RequestTimeout,
    );
    // The host cancelled its call: the person's late approve runs nothing.
    await answeredLate;
    await delay(200);
    expect(ran).toEqual([]);
    // The host's cancel aborted the question: recorded as such, once.
    expect(records.map((record) => [record.outcome, record.code])).toEqual([
      ["refused", "aborted"],
    ]);
  });
});
