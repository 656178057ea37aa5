/**
 * An MCP server over stdio, as an application serves one with an approver
 * directory: `delete_order` asks the host's user (elicitation) under a rule
 * that lets someone on call approve their own calls. The host's user is
 * the HOST_USER variable; each decision is one JSON line on stderr.
 * Started by the tests through the MCP SDK's StdioClientTransport.
 */
import { approverDirectory } from "../../src/agent/approval/approver-directory.js";
import { createMcpServer, serveMcpOverStdio } from "../../src/mcp/index.js";
import { deleteOrderTool } from "./mcp-test-kit.js";

const ran: string[] = [];
const server = createMcpServer({
  tools: [deleteOrderTool(ran)],
  approver: "elicitation",
  approverDirectory: approverDirectory({
    people: [
      { id: "alice", name: "Alice Ng", roles: ["oncall"], identities: { mcp: ["alice"] } },
      { id: "bob", name: "Bob Roy", roles: ["sales"], identities: { mcp: ["bob"] } },
    ],
  }),
  hostUser: process.env.HOST_USER,
  approvalPolicy: {
    rules: [
      {
        name: "deletions by oncall",
        tool: "delete_order",
        decision: "ask",
        roles: ["oncall"],
        allowSelfApproval: process.env.ALLOW_SELF_APPROVAL === "1",
      },
    ],
  },
  onApprovalDecided: (record) => {
    process.stderr.write(
      `${JSON.stringify({ outcome: record.outcome, code: record.code, people: record.people, answeredBy: record.answeredBy })}\n`,
    );
  },
});
await (await serveMcpOverStdio(server)).closed;
