import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { Approver } from "../../src/agent/approver.js";
import { mcpTools } from "../../src/mcp/index.js";
import { ScriptedApprover } from "../../src/testing/scripted-approver.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { captureLogger } from "../helpers/capture-logger.js";
import { connectInMemory, registerPurgeNotes, toolMessages } from "./mcp-test-kit.js";

// One MCP client shared by agents built per request (one per person): a
// server's question during a call says nothing of which call it is about,
// so it must never reach a person whose own call did not raise it.

const clients: Client[] = [];
afterEach(() => Promise.all(clients.splice(0).map((client) => client.close())));

/**
 * A server whose `wait_for_report` holds until released, and whose
 * `purge_notes` asks the user to confirm (a form with a default) before it acts.
 */
function notesServer() {
  const answers: ElicitResult[] = [];
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let waiting: () => void = () => {};
  const waitingStarted = new Promise<void>((resolve) => {
    waiting = resolve;
  });
  const server = new McpServer({ name: "notes-server", version: "1.0.0" });
  server.registerTool(
    "wait_for_report",
    { description: "Waits for the report.", inputSchema: {} },
    async () => {
      waiting();
      await released;
      return { content: [{ type: "text", text: "report ready" }] };
    },
  );
  registerPurgeNotes(server, {
    message: "Purge all 12 notes?",
    withDefault: true,
    answers,
    answered: release,
  });
  return { server, answers, waitingStarted };
}

async function connect(server: McpServer): Promise<Client> {
  const client = await connectInMemory(server, true);
  clients.push(client);
  return client;
}

/** Person A's agent waits for a report while person B's agent purges the notes, on one client. */
async function twoPeopleOnOneClient(approvers: { a: Approver; b: Approver }) {
  const { server, answers, waitingStarted } = notesServer();
  const tools = await mcpTools(await connect(server), {
    serverName: "notes",
    // The calls themselves run without asking: only the server's question is put to a person.
    needsApproval: { wait_for_report: false, purge_notes: false },
  });
  const agentOf = (tool: string, approver: Approver, logger: ReturnType<typeof captureLogger>) =>
    new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: tool, arguments: {} }] }, { text: "done" }]),
      tools,
      approver,
      logger: logger.logger,
    });
  const logs = { a: captureLogger(), b: captureLogger() };
  const runOfA = agentOf("wait_for_report", approvers.a, logs.a).run("Wait for the report");
  await waitingStarted;
  const runOfB = await agentOf("purge_notes", approvers.b, logs.b).run("Purge the notes");
  await runOfA;
  return { answers, messagesOfB: toolMessages(runOfB), logs };
}

describe("a server's question on a client shared by agents goes to a person only when it cannot be someone else's", () => {
  it("declines a question raised while two agents with different approvers have calls in progress, asking neither, and each agent's log says why", async () => {
    const a = new ScriptedApprover(["approve"]);
    const b = new ScriptedApprover(["approve"]);
    const { answers, messagesOfB, logs } = await twoPeopleOnOneClient({ a, b });
    expect(a.requests).toEqual([]);
    expect(b.requests).toEqual([]);
    expect(answers).toEqual([{ action: "decline" }]);
    expect(messagesOfB).toEqual(["kept"]);
    for (const log of [logs.a, logs.b]) {
      expect(log.text()).toContain(
        `declined the elicitation request of MCP server \\"notes\\": 2 agents' calls to the server were in progress with different approvers`,
      );
    }
  });

  it("puts the question to the approver when every call in progress has that same approver", async () => {
    const shared = new ScriptedApprover(["approve"]);
    const { answers, messagesOfB } = await twoPeopleOnOneClient({ a: shared, b: shared });
    expect(shared.requests.map((request) => request.action.toolName)).toEqual(["mcp_elicitation"]);
    expect(answers).toEqual([{ action: "accept", content: { confirm: true } }]);
    expect(messagesOfB).toEqual(["purged"]);
  });
});
