import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import { InMemoryRunStore } from "../../src/agent/durable/in-memory-run-store.js";
import type { RunStore } from "../../src/agent/durable/run-store.js";
import { MessagingApprover } from "../../src/approvers/messaging/messaging-approver.js";
import { MessagingClient } from "../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { createMcpServer, mcpTools } from "../../src/mcp/index.js";
import {
  type MessagingSimulator,
  type OrdersSimulator,
  startMessagingSimulator,
  startOrdersSimulator,
} from "../../src/simulators/index.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { connectInMemory, registerPurgeNotes, textOf, toolMessages } from "./mcp-test-kit.js";

// An interaction of the messaging service answers one question, ever: also
// for a call served over MCP, and for a question an MCP server asks during
// an agent's call, when the service names a new question as an old,
// approved one.

let orders: OrdersSimulator;
let messaging: MessagingSimulator;
const clients: Client[] = [];

beforeAll(async () => {
  [orders, messaging] = await Promise.all([
    startOrdersSimulator(),
    startMessagingSimulator({ answer: "never", deliveryStepMs: 1 }),
  ]);
});
afterAll(() => Promise.all([orders.close(), messaging.close()]));
beforeEach(() => {
  orders.reset();
  messaging.reset();
});
afterEach(() => Promise.all(clients.splice(0).map((client) => client.close())));

type QuestionIds = { interactionId: string; messageId: string };

/** A fetch that names every question sent as `named` (its interaction and message ids), when given. */
function namingFetch(named: QuestionIds | undefined): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (init?.method !== "POST" || url.pathname !== "/v1/messages" || !response.ok || !named) {
      return response;
    }
    const body = (await response.json()) as Record<string, unknown>;
    return Response.json(
      { ...body, interaction_id: named.interactionId, message_id: named.messageId },
      { status: response.status },
    );
  };
}

/** A MessagingApprover of its own (as another process would have), its questions named as `named`. */
function messagingApprover(named?: QuestionIds) {
  return new MessagingApprover({
    client: new MessagingClient({
      baseUrl: messaging.url,
      token: messaging.token,
      maxRetries: 0,
      fetch: namingFetch(named),
    }),
    subscriptionLinkId: messaging.approverLinkId,
    timeoutMs: 10_000,
    pollIntervalMs: 5,
    maxPollIntervalMs: 10,
  });
}

/** Approves the next question the service receives, once it is there; its ids. */
async function approveNextQuestion(): Promise<QuestionIds> {
  const seen = new Set(messaging.interactions().map((entry) => entry.interaction_id));
  for (;;) {
    const question = messaging.interactions().find((entry) => !seen.has(entry.interaction_id));
    if (question !== undefined) {
      messaging.answerInteraction(question.interaction_id, "approve");
      return { interactionId: question.interaction_id, messageId: question.message_id };
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const deletedIds = () =>
  orders.requests
    .filter((request) => request.method === "DELETE" && request.path === "/callbacks")
    .flatMap((request) => request.body as string[]);

async function connected(server: Server | McpServer, elicitation = false): Promise<Client> {
  const client = await connectInMemory(server, elicitation);
  clients.push(client);
  return client;
}

describe("createMcpServer binds each interaction to its call's question in its runStore", () => {
  function deleteCallbackTool() {
    const client = new OrderClient({ baseUrl: orders.url, token: orders.token, maxRetries: 0 });
    return defineTool({
      name: "delete_callback",
      description: "Deletes one callback by id.",
      parameters: z.object({ id: z.string() }),
      needsApproval: true,
      describeAction: ({ id }) => ({ summary: `Delete callback ${id}.` }),
      execute: async ({ id }, context) => client.deleteCallbacks([id], { signal: context.signal }),
    });
  }

  /** One MCP server (as one process serves it) on `runStore`, its approver's questions named as `named`. */
  async function serverClient(runStore: RunStore, named?: QuestionIds) {
    return connected(
      createMcpServer({
        tools: [deleteCallbackTool()],
        approver: messagingApprover(named),
        runStore,
      }),
    );
  }

  const deleteCallback = (client: Client, id: string) =>
    client.callTool({ name: "delete_callback", arguments: { id } }) as Promise<CallToolResult>;

  it("a second server's question named as the first server's approved one deletes nothing", async () => {
    const runStore = new InMemoryRunStore();
    const [mine, theirs] = orders.callbacks().map((callback) => callback.id);
    const calling = deleteCallback(await serverClient(runStore), mine!);
    const first = await approveNextQuestion();
    expect((await calling).isError).toBeUndefined();
    expect(deletedIds()).toEqual([mine]);

    const result = await deleteCallback(await serverClient(runStore, first), theirs!);
    expect(result.isError).toBe(true);
    expect((JSON.parse(textOf(result)) as { reason: string }).reason).toContain(
      `under interaction "${first.interactionId}" of link "${messaging.approverLinkId}", which already holds another question`,
    );
    expect(deletedIds()).toEqual([mine]);
  });

  it("says which methods a runStore lacks", () => {
    expect(() =>
      createMcpServer({
        tools: [deleteCallbackTool()],
        approver: messagingApprover(),
        runStore: { ...new InMemoryRunStore(), save: async () => {} } as unknown as RunStore,
      }),
    ).toThrow(
      /runStore must implement every RunStore method \(e\.g\. a FileRunStore\); it lacks load\(\)/,
    );
  });
});

describe("a question an MCP server asks during an agent's call is bound in the agent's run store and audited", () => {
  /** A server whose `purge_notes` asks the user to confirm (a form with a default) before it acts. */
  function confirmingServer(answers: ElicitResult[]) {
    const server = new McpServer({ name: "notes-server", version: "1.0.0" });
    registerPurgeNotes(server, { message: "Purge all 12 notes?", withDefault: true, answers });
    return server;
  }

  /** One agent (as one process builds it) purging the notes, on `runStore`, its questions named as `named`. */
  async function purge(runStore: RunStore, records: ApprovalAuditRecord[], named?: QuestionIds) {
    const answers: ElicitResult[] = [];
    const tools = await mcpTools(await connected(confirmingServer(answers), true), {
      serverName: "notes",
      // The call runs without asking: only the server's question is put to the person.
      needsApproval: { purge_notes: false },
    });
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "purge_notes", arguments: {} }] },
        { text: "done" },
      ]),
      tools,
      approver: messagingApprover(named),
      runStore,
      onApprovalDecided: (record) => {
        records.push(record);
      },
    });
    const result = await agent.run("Purge the notes");
    return { answers, messages: toolMessages(result), runId: result.runId };
  }

  it("an agent's question named as another agent's approved one is declined", async () => {
    const runStore = new InMemoryRunStore();
    const records: ApprovalAuditRecord[] = [];
    const purging = purge(runStore, records);
    const first = await approveNextQuestion();
    expect((await purging).messages).toEqual(["purged"]);

    const second = await purge(runStore, [], first);
    expect(second.answers).toEqual([{ action: "decline" }]);
    expect(second.messages).toEqual(["kept"]);
  });

  it("each decision about a server's question has one audit record, under mcp_elicitation", async () => {
    const records: ApprovalAuditRecord[] = [];
    const purging = purge(new InMemoryRunStore(), records);
    const asked = await approveNextQuestion();
    const { runId } = await purging;
    // The call itself has its own record (the rule that let it run without asking).
    expect(records.filter((record) => record.action === "mcp_elicitation")).toEqual([
      expect.objectContaining({
        action: "mcp_elicitation",
        outcome: "approved",
        runId,
        interactionId: asked.interactionId,
      }),
    ]);
  });
});
