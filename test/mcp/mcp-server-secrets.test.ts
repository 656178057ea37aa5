import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalAction } from "../../src/agent/approver.js";
import { createMcpServer } from "../../src/mcp/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { decidingApprover } from "../helpers/approver-verbs.js";

// A key of the application's own: nothing but the server's `secrets` option names it.
const secret = "acct-key-Mcp4417Zq";

it("shows an approver of the application's own each action with the registered secrets removed, bound to the real call, and keeps them out of the progress it sends the host", async () => {
  const seen: ApprovalAction[] = [];
  const ran: unknown[] = [];
  const approver = decidingApprover((action) => {
    seen.push(action);
    return { outcome: "refused", code: "denied", reason: "not now" };
  });
  const forward = defineTool({
    name: "forward_report",
    description: "Sends the report to a partner endpoint.",
    parameters: z.object({ header: z.string() }),
    needsApproval: true,
    describeAction: ({ header }) => ({
      summary: "Send the report.",
      details: [{ label: "header", value: header }],
    }),
    execute: async (args) => {
      ran.push(args);
      return { sent: true };
    },
  });
  const server = createMcpServer({ tools: [forward], approver, secrets: [secret] });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(clientTransport);
  const progress: string[] = [];
  try {
    await client.callTool({ name: "forward_report", arguments: { header: secret } }, undefined, {
      onprogress: (update) => progress.push(update.message ?? ""),
    });
  } finally {
    await client.close();
  }
  expect(ran).toEqual([]);
  expect(seen).toHaveLength(1);
  expect(JSON.stringify(seen[0]?.arguments)).not.toContain(secret);
  expect(seen[0]?.arguments).toEqual({ header: "[redacted] registered secret" });
  expect(seen[0]?.description.details).toEqual([
    { label: "header", value: "[redacted] registered secret" },
  ]);
  expect(JSON.stringify(seen[0]?.view)).not.toContain(secret);
  // The fingerprint binds to the real arguments, not the redacted copy shown.
  expect(seen[0]?.fingerprint).toMatch(/^sha256:/);
  expect(progress.join("\n")).not.toContain(secret);
});
