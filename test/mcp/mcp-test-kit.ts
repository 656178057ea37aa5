import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Agent } from "../../src/agent/agent.js";
import type { Simulators } from "../../src/simulators/start-simulators.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { repositoryRoot } from "../cli/spawn-switchyard.js";

/**
 * Every secret the simulators hold: their bearer tokens and API key, and
 * the callbacks' verification tokens (sealed as stored). None may reach an
 * MCP host in a tool's result or error.
 */
export function secretsOf(simulators: Simulators): string[] {
  return [
    simulators.reasoner.apiKey,
    simulators.orders.token,
    simulators.docs.token,
    simulators.messaging.token,
    ...simulators.orders.state.callbacks.map((callback) => callback.token),
  ].filter((secret): secret is string => typeof secret === "string" && secret !== "");
}

/** The text blocks of a tool's result, joined. */
export function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

/** The tool messages the model read, parsed when they are JSON. */
export function toolMessages(result: Awaited<ReturnType<Agent["run"]>>): unknown[] {
  return result.messages
    .filter((message) => message.role === "tool")
    .map((message) => {
      try {
        return JSON.parse(String(message.content)) as unknown;
      } catch {
        return message.content;
      }
    });
}

/** A gated tool that deletes an order in production; each id it really ran with is pushed to `ran`. */
export function deleteOrderTool(ran: string[]) {
  return defineTool({
    name: "delete_order",
    description: "Deletes an order.",
    parameters: z.object({ id: z.string(), reason: z.string().optional() }),
    needsApproval: true,
    target: { service: "orders", account: "acme", environment: "production" },
    describeAction: ({ id }) => ({
      summary: "Delete one order: it is gone for good.",
      details: [{ label: "order", value: id }],
    }),
    execute: ({ id }) => {
      ran.push(id);
      return `deleted ${id}`;
    },
  });
}

/** An initialize request as a raw HTTP body: it opens a session of `serveMcpOverHttp`. */
export const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw-fetch", version: "1" },
  },
});

/**
 * Registers `purge_notes` on an SDK McpServer: it asks the user to confirm
 * (elicitInput, a form whose `confirm` field has a default when
 * `withDefault`) before it acts, as servers that confirm their own actions
 * do, pushes each answer to `answers`, calls `answered` and says "purged"
 * or "kept".
 */
export function registerPurgeNotes(
  server: McpServer,
  options: {
    message: string;
    withDefault: boolean;
    answers: ElicitResult[];
    answered?: () => void;
  },
): void {
  server.registerTool(
    "purge_notes",
    { description: "Purges every note.", inputSchema: {} },
    async () => {
      const result = await server.server.elicitInput({
        mode: "form",
        message: options.message,
        requestedSchema: {
          type: "object",
          properties: {
            confirm: {
              type: "boolean",
              title: "Purge",
              ...(options.withDefault ? { default: true } : {}),
            },
          },
          required: ["confirm"],
        },
      });
      options.answers.push(result);
      options.answered?.();
      const purged = result.action === "accept" && result.content?.confirm === true;
      return { content: [{ type: "text", text: purged ? "purged" : "kept" }] };
    },
  );
}

/** An SDK client connected to `server` in memory, declaring elicitation when `elicitation`; close it when done. */
export async function connectInMemory(
  server: { connect: McpServer["connect"] },
  elicitation: boolean,
): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client(
    { name: "switchyard-agent", version: "1.0.0" },
    { capabilities: elicitation ? { elicitation: { form: {} } } : {} },
  );
  await client.connect(clientTransport);
  return client;
}

/** An application's own Streamable HTTP endpoint with sessions, as the SDK's docs build one. */
export interface SessionEndpoint {
  url: URL;
  /** The methods of the requests the endpoint received, in order (`GET` would be the optional stream). */
  methods: string[];
  close(): Promise<void>;
}

/**
 * Serves a server from `createMcpServer` per session over the SDK's
 * Streamable HTTP transport on loopback. With `authenticate`, each request
 * first gets what it returns as `req.auth` (as the SDK's `requireBearerAuth`
 * sets it), when it returns anything.
 */
export async function serveMcpSessions(
  createMcpServer: () => Server,
  authenticate?: (request: IncomingMessage) => AuthInfo | undefined,
): Promise<SessionEndpoint> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const methods: string[] = [];
  const httpServer: HttpServer = createServer((request, response) => {
    methods.push(request.method ?? "");
    const auth = authenticate?.(request);
    if (auth !== undefined) (request as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    const sessionId = request.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (known) {
      known.handleRequest(request, response).catch(() => response.end());
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    createMcpServer()
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch(() => response.end());
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    methods,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/**
 * The stdio transport a host starts `node --import tsx <args>` with, from
 * the repository root, in this environment without its SWITCHYARD_*
 * variables plus `env`; what the process writes to stderr is collected.
 */
export function stdioHostTransport(
  args: readonly string[],
  env: Record<string, string>,
): { transport: StdioClientTransport; stderr: () => string } {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        !entry[0].startsWith("SWITCHYARD_") && entry[1] !== undefined,
    ),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", ...args],
    cwd: repositoryRoot,
    env: { ...inherited, ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return { transport, stderr: () => stderr };
}
