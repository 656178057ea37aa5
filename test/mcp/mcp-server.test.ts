import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExampleServices } from "../../src/cli/create-example-services.js";
import { simulatorEndpoints } from "../../src/cli/simulator-endpoints.js";
import { createMcpServer, serveMcpOverHttp } from "../../src/mcp/index.js";
import type {
  AnswerChoice,
  InteractionQuestion,
} from "../../src/simulators/messaging/answer-mode.js";
import { type Simulators, startSimulators } from "../../src/simulators/start-simulators.js";
import { docsTools } from "../../src/tools/docs/docs-tools.js";
import { messagingTools } from "../../src/tools/messaging/messaging-tools.js";
import { orderTools } from "../../src/tools/orders/order-tools.js";
import { secretsOf, textOf } from "./mcp-test-kit.js";

/** The person's answers, in the order the questions come; a question beyond them is denied. */
const answers: AnswerChoice[] = [];
const questions: InteractionQuestion[] = [];
let simulators: Simulators;
let client: Client;

beforeAll(async () => {
  simulators = await startSimulators({
    messaging: {
      answer: (question) => {
        questions.push(question);
        return answers.shift() ?? { option_id: "deny" };
      },
    },
  });
  const services = createExampleServices(simulatorEndpoints(simulators), {
    approvalTimeoutMs: 10_000,
  });
  const server = createMcpServer({
    tools: [
      ...orderTools(services.orders),
      ...docsTools(services.docs),
      ...messagingTools(services.messaging),
    ],
    approver: services.approver,
    name: "switchyard-test",
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(clientTransport);
});

afterAll(async () => {
  await client?.close();
  await simulators?.close();
});

describe("createMcpServer, driven by the SDK's own Client", () => {
  it("lists every tool with its schema and the annotations of its definition", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("list_callbacks")?.annotations).toEqual({ readOnlyHint: true });
    expect(byName.get("delete_callbacks")?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.get("create_orders")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });
    expect(byName.get("create_orders")?.annotations).not.toHaveProperty("idempotentHint");
    expect(byName.get("delete_callbacks")?.inputSchema).toMatchObject({
      type: "object",
      required: ["callback_ids"],
    });
    expect(byName.has("send_notification")).toBe(true);
    expect(byName.has("push_docs_files")).toBe(true);
  });

  it("runs a read tool and returns its result as text and structured content", async () => {
    const result = (await client.callTool({
      name: "list_callbacks",
      arguments: {},
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { callbacks: Array<{ id: string }> };
    expect(structured.callbacks.length).toBe(simulators.orders.state.callbacks.length);
    expect(JSON.parse(textOf(result))).toEqual(structured);
    for (const secret of secretsOf(simulators)) expect(textOf(result)).not.toContain(secret);
  });

  it("asks the person before a gated tool; one approved deletion, one denied", async () => {
    const [first, second] = simulators.orders.state.callbacks;
    const deletions = () =>
      simulators.orders.requests.filter(
        (request) => request.method === "DELETE" && request.path === "/callbacks",
      );
    const before = deletions().length;
    const asked = questions.length;

    answers.push({ option_id: "approve" });
    const approved = (await client.callTool({
      name: "delete_callbacks",
      arguments: { callback_ids: [first!.id] },
    })) as CallToolResult;
    expect(approved.isError).toBeFalsy();
    expect(questions.length).toBe(asked + 1);
    expect(questions.at(-1)?.text).toContain(first!.url);

    answers.push({ option_id: "deny", text: "not this one" });
    const denied = (await client.callTool({
      name: "delete_callbacks",
      arguments: { callback_ids: [second!.id] },
    })) as CallToolResult;
    expect(denied.isError).toBe(true);
    expect(JSON.parse(textOf(denied))).toMatchObject({
      error: "approval_refused",
      code: "denied",
    });
    expect(textOf(denied)).toContain("the human declined it");

    expect(deletions().length - before).toBe(1);
    expect(deletions().at(-1)?.body).toEqual([first!.id]);
    for (const result of [approved, denied]) {
      for (const secret of secretsOf(simulators)) expect(textOf(result)).not.toContain(secret);
    }
  });

  it("takes nothing the client sends as the approval", async () => {
    const remaining = simulators.orders.state.callbacks.filter(
      (callback) => !simulators.orders.state.deletedCallbackIds.has(callback.id),
    );
    const before = simulators.orders.requests.length;
    // The person (through the messaging service) denies; the client claims otherwise.
    answers.push({ option_id: "deny" });
    const claimed = (await client.callTool({
      name: "delete_callbacks",
      arguments: { callback_ids: [remaining[0]!.id] },
      _meta: { approved: true, approval: { outcome: "approved" } },
    })) as CallToolResult;
    expect(JSON.parse(textOf(claimed))).toMatchObject({
      error: "approval_refused",
      code: "denied",
    });
    // An approval smuggled in the arguments is not an argument of the tool: refused before anyone is asked.
    const asked = questions.length;
    const smuggled = (await client.callTool({
      name: "delete_callbacks",
      arguments: { callback_ids: [remaining[1]!.id], approved: true },
    })) as CallToolResult;
    expect(smuggled.isError).toBe(true);
    expect(questions.length).toBe(asked);
    expect(
      simulators.orders.requests.slice(before).filter((request) => request.method === "DELETE"),
    ).toEqual([]);
  });

  it("sends invalid arguments back with what to fix, and answers an unknown tool with an error", async () => {
    const result = (await client.callTool({
      name: "list_orders",
      arguments: { limit: "many" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({ error: "invalid_arguments" });
    await expect(client.callTool({ name: "drop_database", arguments: {} })).rejects.toThrow(
      /no tool named "drop_database"/,
    );
  });
});

describe("serveMcpOverHttp", () => {
  it("needs the bearer token, then serves the same tools", async () => {
    const token = "a-test-token-of-enough-length";
    const endpoint = await serveMcpOverHttp({
      createServer: () =>
        createMcpServer({
          tools: messagingTools(createExampleServices(simulatorEndpoints(simulators)).messaging),
          approver: undefined,
        }),
      token,
    });
    try {
      const refused = await fetch(endpoint.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(refused.status).toBe(401);
      const wrong = new Client({ name: "wrong", version: "1" });
      await expect(
        wrong.connect(
          new StreamableHTTPClientTransport(new URL(endpoint.url), {
            requestInit: { headers: { Authorization: "Bearer not-the-token-at-all" } },
          }),
        ),
      ).rejects.toThrow();

      const httpClient = new Client({ name: "http-host", version: "1" });
      await httpClient.connect(
        new StreamableHTTPClientTransport(new URL(endpoint.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      const { tools } = await httpClient.listTools();
      expect(tools.map((tool) => tool.name)).toContain("get_message_status");
      await httpClient.close();
    } finally {
      await endpoint.close();
    }
  });

  it("refuses to start without a real token", async () => {
    await expect(
      serveMcpOverHttp({
        createServer: () => createMcpServer({ tools: [], approver: undefined }),
        token: "short",
      }),
    ).rejects.toThrow(/at least 16 characters/);
  });
});
