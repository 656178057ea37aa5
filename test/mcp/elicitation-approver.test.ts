import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  type ElicitRequest,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpServer, serveMcpOverHttp } from "../../src/mcp/index.js";
import { deleteOrderTool, textOf } from "./mcp-test-kit.js";

const secret = "elicitation-secret-value-7731";
/** What the tool was really run with. */
const ran: string[] = [];
const clients: Client[] = [];

afterEach(async () => {
  ran.length = 0;
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

const tools = [deleteOrderTool(ran)];

/** The questions the host was asked, and how its user answers each (in order). */
interface Host {
  client: Client;
  questions: ElicitRequest["params"][];
}

async function host(
  answers: ElicitResult[],
  options: { elicitation?: boolean; wrap?: (transport: Transport) => Transport } = {},
): Promise<Host> {
  const server = createMcpServer({ tools, approver: "elicitation", secrets: [secret] });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client(
    { name: "elicit-host", version: "1.0.0" },
    { capabilities: options.elicitation === false ? {} : { elicitation: { form: {} } } },
  );
  const questions: ElicitRequest["params"][] = [];
  if (options.elicitation !== false) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(request.params);
      return answers.shift() ?? { action: "cancel" };
    });
  }
  await client.connect(options.wrap ? options.wrap(clientTransport) : clientTransport);
  clients.push(client);
  return { client, questions };
}

async function deleteOrder(client: Client, id: string, reason?: string) {
  return (await client.callTool({
    name: "delete_order",
    arguments: { id, ...(reason !== undefined ? { reason } : {}) },
  })) as CallToolResult;
}

describe('createMcpServer({ approver: "elicitation" }) asks the host\'s user', () => {
  it("shows the whole call in a form offering approve or deny, and runs it once on approve", async () => {
    const { client, questions } = await host([
      { action: "accept", content: { decision: "approve", note: "go ahead" } },
    ]);
    const result = await deleteOrder(client, "ORD-7", secret);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("deleted ORD-7");
    expect(ran).toEqual(["ORD-7"]);
    expect(questions).toHaveLength(1);
    const question = questions[0] as ElicitRequestFormParams;
    expect(question.mode).toBe("form");
    const message = question.message;
    expect(message).toContain("Delete one order: it is gone for good.");
    expect(message).toContain(
      'Where: service "orders", account "acme", environment "production" (PRODUCTION)',
    );
    expect(message).toContain("Tool: delete_order");
    expect(message).toContain('"reason": "[redacted] registered secret"');
    expect(message).toContain('- order: "ORD-7"');
    expect(message).toContain('"id": "ORD-7"');
    expect(message).toContain("This cannot be undone.");
    expect(message).not.toContain(secret);
    expect(question.requestedSchema).toMatchObject({
      properties: { decision: { enum: ["approve", "deny"] }, note: { type: "string" } },
      required: ["decision"],
    });
  });

  it("refuses on decline, cancel, deny or an answer without a decision, and runs nothing", async () => {
    const answers: ElicitResult[] = [
      { action: "decline" },
      { action: "cancel" },
      { action: "accept", content: { decision: "deny", note: "not this one" } },
      { action: "accept", content: {} },
    ];
    const { client, questions } = await host([...answers]);
    const codes: unknown[] = [];
    for (const id of ["a", "b", "c", "d"]) {
      const result = await deleteOrder(client, id);
      expect(result.isError).toBe(true);
      const refusal = JSON.parse(textOf(result)) as { error: string; code: string };
      expect(refusal.error).toBe("approval_refused");
      codes.push(refusal.code);
    }
    // The last does not match the form (no decision): the SDK refuses it before the approver reads it.
    expect(codes).toEqual(["denied", "canceled", "denied", "approver_error"]);
    expect(questions).toHaveLength(4);
    expect(ran).toEqual([]);
  });

  it("escapes untrusted text in the question, so an argument cannot pose as a line of it", async () => {
    const { client, questions } = await host([{ action: "decline" }]);
    await deleteOrder(
      client,
      "ORD-1\u202e\x1b[2K\nApprove this tool call? Nothing happens.",
      "\u2028This can be undone.",
    );
    const message = questions[0]!.message;
    for (const character of ["\u202e", "\x1b", "\u2028"]) expect(message).not.toContain(character);
    expect(message).toContain("ORD-1\\u202e\\x1b[2K\\nApprove this tool call? Nothing happens.");
    expect(
      message.split("\n").filter((line) => line.startsWith("Approve this tool call?")),
    ).toEqual(["Approve this tool call? Delete one order: it is gone for good."]);
    expect(message.split("\n")).not.toContain("This can be undone.");
  });

  it("spends an answer once: a replayed answer runs nothing more, and the next call asks again", async () => {
    // The host sends each of its answers twice, as a replaying or buggy client would.
    let replayed = 0;
    const replaying = (transport: Transport): Transport => {
      const send = transport.send.bind(transport);
      transport.send = async (message, options) => {
        await send(message, options);
        if ("result" in message && "action" in (message.result as object)) {
          await send(message, options);
          replayed += 1;
        }
      };
      return transport;
    };
    const { client, questions } = await host(
      [{ action: "accept", content: { decision: "approve" } }, { action: "decline" }],
      { wrap: replaying },
    );
    const first = await deleteOrder(client, "ORD-1");
    const second = await deleteOrder(client, "ORD-1");
    expect(first.isError).toBeFalsy();
    expect(second.isError).toBe(true);
    expect(replayed).toBe(2);
    expect(ran).toEqual(["ORD-1"]);
    expect(questions).toHaveLength(2);
  });

  it("refuses, saying how to fix it, when the client did not declare elicitation", async () => {
    const { client } = await host([], { elicitation: false });
    const result = await deleteOrder(client, "ORD-9");
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain("did not declare the elicitation capability");
    expect(text).toContain("--approve browser");
    expect(ran).toEqual([]);
  });

  it("asks over serveMcpOverHttp, whose sessions carry the question back, and runs on approve", async () => {
    const token = "elicitation-http-token-0123456";
    const endpoint = await serveMcpOverHttp({
      createServer: () => createMcpServer({ tools, approver: "elicitation" }),
      token,
    });
    try {
      const client = new Client(
        { name: "http-host", version: "1" },
        { capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler(ElicitRequestSchema, () => ({
        action: "accept",
        content: { decision: "approve" },
      }));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(endpoint.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      const result = await deleteOrder(client, "ORD-3");
      expect(result.isError).toBeFalsy();
      expect(ran).toEqual(["ORD-3"]);
    } finally {
      await endpoint.close();
    }
  });
});
