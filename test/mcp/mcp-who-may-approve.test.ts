import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import { approverDirectory } from "../../src/agent/approval/approver-directory.js";
import { createMcpServer, type McpServerOptions, serveMcpOverHttp } from "../../src/mcp/index.js";
import { type Simulators, startSimulators } from "../../src/simulators/start-simulators.js";
import { deleteOrderTool, serveMcpSessions, stdioHostTransport, textOf } from "./mcp-test-kit.js";

/** Alice is on call; Bob is in sales. */
const people = [
  { id: "alice", name: "Alice Ng", roles: ["oncall"], identities: { mcp: ["alice"] } },
  { id: "bob", name: "Bob Roy", roles: ["sales"], identities: { mcp: ["bob"] } },
];
const directory = approverDirectory({ people });

/** Deletions need someone on call; the host's user asked for the call, and may approve it. */
const onCallMayApproveTheirOwn: McpServerOptions["approvalPolicy"] = {
  rules: [
    {
      name: "deletions by oncall",
      tool: "delete_order",
      decision: "ask",
      roles: ["oncall"],
      allowSelfApproval: true,
    },
  ],
};

const ran: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  ran.length = 0;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** An SDK host declaring elicitation, approving every form it is shown; the forms' messages. */
function approvingHost(): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const client = new Client(
    { name: "host", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push((request.params as ElicitRequestFormParams).message);
    return { action: "accept", content: { decision: "approve" } };
  });
  cleanups.push(() => client.close());
  return { client, asked };
}

async function deleteOrder(client: Client, id: string): Promise<CallToolResult> {
  return (await client.callTool({ name: "delete_order", arguments: { id } })) as CallToolResult;
}

describe("who may approve over MCP elicitation: the host's user", () => {
  it("over HTTP, the host's user on call approves: the call runs and the record names them by host user", async () => {
    const records: ApprovalAuditRecord[] = [];
    const endpoint = await serveMcpOverHttp({
      token: "a-token-of-at-least-16-chars",
      createServer: () =>
        createMcpServer({
          tools: [deleteOrderTool(ran)],
          approver: "elicitation",
          approverDirectory: directory,
          hostUser: "alice",
          approvalPolicy: onCallMayApproveTheirOwn,
          onApprovalDecided: (record) => {
            records.push(record);
          },
        }),
    });
    cleanups.push(() => endpoint.close());
    const { client, asked } = approvingHost();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(endpoint.url), {
        requestInit: { headers: { authorization: "Bearer a-token-of-at-least-16-chars" } },
      }),
    );

    const result = await deleteOrder(client, "ord_1");

    expect(result.isError).toBeFalsy();
    expect(ran).toEqual(["ord_1"]);
    expect(asked[0]).toContain(
      "Who may approve: one person among Alice Ng (alice) (role: oncall).",
    );
    expect(records).toEqual([
      expect.objectContaining({
        outcome: "approved",
        answeredBy: { channel: "mcp", id: "alice" },
        people: [{ id: "alice", name: "Alice Ng", channel: "mcp", evidence: "alice" }],
      }),
    ]);
  });

  it("names the host's user per request from the token the HTTP server checked: wrong role, and a request no token names, run nothing", async () => {
    const records: ApprovalAuditRecord[] = [];
    const tokens: Record<string, string> = { "tok-alice-0c1e": "alice", "tok-bob-77ad": "bob" };
    const url = await serveWithAuth(tokens, {
      tools: [deleteOrderTool(ran)],
      approver: "elicitation",
      approverDirectory: directory,
      hostUser: ({ authInfo }) => authInfo?.extra?.user as string | undefined,
      approvalPolicy: onCallMayApproveTheirOwn,
      onApprovalDecided: (record) => {
        records.push(record);
      },
    });
    const connect = async (token: string) => {
      const host = approvingHost();
      await host.client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return host;
    };

    const alice = await connect("tok-alice-0c1e");
    expect((await deleteOrder(alice.client, "ord_a")).isError).toBeFalsy();
    const bob = await connect("tok-bob-77ad");
    const byBob = await deleteOrder(bob.client, "ord_b");
    // A token nobody holds: the request reaches the server, and nobody is named.
    const forger = await connect("tok-alice-forged");
    const forged = await deleteOrder(forger.client, "ord_f");

    expect(ran).toEqual(["ord_a"]);
    expect(byBob.isError).toBe(true);
    expect(textOf(byBob)).toContain("approver_not_allowed");
    expect(forged.isError).toBe(true);
    expect(textOf(forged)).toContain("approver_not_allowed");
    // Nobody is asked when the server cannot tell who would answer.
    expect(forger.asked).toEqual([]);
    expect(records.map((record) => [record.outcome, record.code, record.answeredBy?.id])).toEqual([
      ["approved", undefined, "alice"],
      ["refused", "approver_not_allowed", "bob"],
      ["refused", "approver_not_allowed", undefined],
    ]);
  });
});

/**
 * An application's own MCP endpoint over HTTP that checks each request's
 * bearer token and, for a token it knows, puts the user on the request
 * (`req.auth`, as the SDK's `requireBearerAuth` does).
 */
async function serveWithAuth(
  tokens: Record<string, string>,
  options: McpServerOptions,
): Promise<URL> {
  const endpoint = await serveMcpSessions(
    () => createMcpServer(options),
    (request) => {
      const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
      const user = tokens[token];
      return user === undefined
        ? undefined
        : { token, clientId: "host", scopes: [], extra: { user } };
    },
  );
  cleanups.push(endpoint.close);
  return endpoint.url;
}

describe("switchyard mcp --approve elicit --approver-directory, over stdio as a host starts it", () => {
  let simulators: Simulators;
  const stateDirectory = mkdtempSync(join(tmpdir(), "switchyard-mcp-people-"));
  const directoryFile = join(stateDirectory, "approvers.json");
  const localUser = userInfo().username;

  beforeAll(async () => {
    simulators = await startSimulators();
    writeFileSync(
      directoryFile,
      JSON.stringify({
        people: [
          { id: "me", name: "Me Here", roles: ["oncall"], identities: { mcp: [localUser] } },
          ...people,
        ],
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await simulators?.close();
    rmSync(stateDirectory, { recursive: true, force: true });
  });

  /** The command as a host starts it, with these extra flags; its stderr. */
  async function startCommand(
    flags: string[],
  ): Promise<{ client: Client; asked: string[]; stderr: () => string }> {
    const { transport, stderr } = stdioHostTransport(
      ["src/cli/main.ts", "mcp", "--tools", "orders", "--approve", "elicit", ...flags],
      {
        SWITCHYARD_ORDERS_URL: simulators.orders.url,
        SWITCHYARD_ORDERS_TOKEN: simulators.orders.token,
        SWITCHYARD_STATE_DIR: stateDirectory,
      },
    );
    const { client, asked } = approvingHost();
    await client.connect(transport);
    return { client, asked, stderr };
  }

  const deletions = () =>
    simulators.orders.requests.filter((request) => request.method === "DELETE");

  it("the host's user started the call (the local user, or --host-user), so their own approval is refused (self_approval): nothing runs", async () => {
    for (const [flags, evidence, askedCount] of [
      // The directory knows them as the starter: they are not even asked.
      [[], "The MCP host's user (me in the approver directory) started this call", 0],
      // Someone the directory does not know is asked, and the very identity that started the call answered it.
      [["--host-user", "mallory"], 'mcp identity \\"mallory\\" started this run', 1],
    ] as const) {
      const { client, asked, stderr } = await startCommand([
        "--approver-directory",
        directoryFile,
        ...flags,
      ]);
      const [callback] = simulators.orders.state.callbacks;

      const result = (await client.callTool({
        name: "delete_callbacks",
        arguments: { callback_ids: [callback!.id] },
      })) as CallToolResult;

      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("self_approval");
      expect(textOf(result)).toContain(evidence);
      expect(asked).toHaveLength(askedCount);
      expect(deletions()).toEqual([]);
      expect(stderr()).toMatch(/Approval refused \(self_approval\) for delete_callbacks/);
    }
  }, 120_000);
});

describe("an application's MCP server with an approver directory, over stdio", () => {
  /** The server of people-stdio-server.ts, started as a host starts it, as `hostUser`. */
  async function connect(env: Record<string, string>) {
    const { transport, stderr } = stdioHostTransport(["test/mcp/people-stdio-server.ts"], env);
    const host = approvingHost();
    await host.client.connect(transport);
    const decisions = () =>
      stderr()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { ...host, decisions };
  }

  it("the host's user on call approves their own call where the rule allows it: it runs, named by host user", async () => {
    const { client, asked, decisions } = await connect({
      HOST_USER: "alice",
      ALLOW_SELF_APPROVAL: "1",
    });

    const result = await deleteOrder(client, "ord_1");

    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("deleted ord_1");
    expect(asked[0]).toContain(
      "Who may approve: one person among Alice Ng (alice) (role: oncall).",
    );
    // Its stderr may come after its stdout.
    await vi.waitFor(() => expect(decisions()).toHaveLength(1));
    expect(decisions()).toEqual([
      {
        outcome: "approved",
        answeredBy: { channel: "mcp", id: "alice" },
        people: [{ id: "alice", name: "Alice Ng", channel: "mcp", evidence: "alice" }],
      },
    ]);
  }, 60_000);

  it("a host user the directory does not know, one of another role, and the host's user where self-approval is forbidden run nothing", async () => {
    for (const [env, code, answeredBy] of [
      [{ HOST_USER: "mallory", ALLOW_SELF_APPROVAL: "1" }, "approver_not_allowed", "mallory"],
      [{ HOST_USER: "bob", ALLOW_SELF_APPROVAL: "1" }, "approver_not_allowed", "bob"],
      // Alice started the call and may not approve it: she is not asked, so nobody answered.
      [{ HOST_USER: "alice" }, "self_approval", undefined],
    ] as const) {
      const { client, asked, decisions } = await connect(env);

      const result = await deleteOrder(client, "ord_2");

      expect(result.isError, env.HOST_USER).toBe(true);
      expect(textOf(result), env.HOST_USER).not.toContain("deleted");
      await vi.waitFor(() => expect(decisions()).toHaveLength(1));
      expect(decisions(), env.HOST_USER).toEqual([
        expect.objectContaining({
          outcome: "refused",
          code,
          ...(answeredBy ? { answeredBy: { channel: "mcp", id: answeredBy } } : {}),
        }),
      ]);
      expect(asked, env.HOST_USER).toHaveLength(answeredBy === undefined ? 0 : 1);
    }
  }, 120_000);
});
