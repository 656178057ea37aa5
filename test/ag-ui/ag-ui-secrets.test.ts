import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseEvent } from "@ag-ui/client";
import { afterEach, expect, it } from "vitest";
import { z } from "zod";
import { AgUiApprover, createAgUiHandler } from "../../src/ag-ui/index.js";
import { Agent } from "../../src/agent/agent.js";
import { registeredSecretPlaceholder } from "../../src/agent/approval/action-view.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { clientFor, runClient, startAgUiServer, userMessageRequest } from "./ag-ui-server.js";

// A key of the application's own: nothing but the agent's `secrets` option names it.
const secret = "hook-token-AgUi7781Qx";
let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
});

it("keeps the agent's registered secrets out of everything sent to the client: the interrupt's description and the streamed arguments", async () => {
  directory = await mkdtemp(join(tmpdir(), "switchyard-ag-ui-"));
  const ran: unknown[] = [];
  // The description quotes service data that is the secret (the webhook's token).
  const tool = defineTool({
    name: "delete_hook",
    description: "Deletes a webhook by id.",
    parameters: z.object({ id: z.string(), reason: z.string() }),
    needsApproval: true,
    describeAction: ({ id }) => ({
      summary: "Delete 1 webhook",
      details: [{ label: `webhook ${id} signs with`, value: secret }],
    }),
    execute: async (args) => {
      ran.push(args);
      return { deleted: true };
    },
  });
  const approver = new AgUiApprover();
  const runStore = new FileRunStore({ directory });
  const agent = new Agent({
    model: new ScriptedModel([
      {
        toolCalls: [
          { name: "delete_hook", arguments: { id: "wh_1", reason: "retired" }, id: "call_1" },
        ],
      },
    ]),
    tools: [tool],
    approver,
    runStore,
    secrets: [secret],
  });
  const handler = createAgUiHandler({ agent, approver, runStore, authorize: () => "ada" });
  const response = await handler(userMessageRequest("Delete webhook wh_1"));
  const text = await response.text();
  expect(text).toContain('"type":"RUN_FINISHED"');
  expect(text).toContain("interrupt");
  expect(text).toContain('signs with: \\"[redacted] registered secret\\"');
  expect(text).not.toContain(secret);
  expect(ran).toEqual([]);
});

it("keeps a registered secret out of streamed text and argument deltas when the model streams it split in two", async () => {
  // A record id that is also a key of the application's: the agent's `secrets` name it.
  const splitSecret = "rec_s3cretk3y9911";
  const server = await startAgUiServer(
    [
      {
        textPieces: ["Deleting rec_s3cr", "etk3y9911 now", "."],
        toolCalls: [
          {
            name: "delete_records",
            argumentPieces: ['{"ids":["rec_s3cre', 'tk3y9911"]}'],
            id: "call_split",
          },
        ],
      },
      // Arguments holding a secret cannot wait in the run store: the call is refused, the run goes on.
      { text: "Nothing was deleted." },
    ],
    { agentOptions: { secrets: [splitSecret] } },
  );
  try {
    const run = await runClient(clientFor(server.url), { message: "Delete the record" });
    expect(run.error).toBeUndefined();
    const deltas = (type: string) =>
      run.events
        .filter((event) => event.type === type)
        .map((event) => (event as BaseEvent & { delta: string }).delta);
    expect(deltas("TEXT_MESSAGE_CONTENT").join("")).toBe(
      "Deleting [redacted] now.Nothing was deleted.",
    );
    // The arguments go out as the person is asked about them: the secret as the view's placeholder.
    expect(JSON.parse(deltas("TOOL_CALL_ARGS").join(""))).toEqual({
      ids: [registeredSecretPlaceholder],
    });
    expect(JSON.stringify(run.events)).not.toContain(splitSecret);
    expect(run.types).toEqual(
      expect.arrayContaining([
        "TEXT_MESSAGE_END",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "RUN_FINISHED",
      ]),
    );
    expect(server.runs).toEqual([]);
  } finally {
    await server.close();
  }
});

it("keeps a registered secret the model wrote with JSON \\u escapes out of the tool call's arguments", async () => {
  const escapedSecret = "rec_s3cretk3y9911";
  const server = await startAgUiServer(
    [
      {
        toolCalls: [
          {
            name: "delete_records",
            // "e" written as \u0065: the text holds no copy of the secret, its value does.
            argumentPieces: ['{"ids":["rec_s3cr\\u0065tk3y9911"]}'],
            id: "call_escaped",
          },
        ],
      },
      { text: "Nothing was deleted." },
    ],
    { agentOptions: { secrets: [escapedSecret] } },
  );
  try {
    const client = clientFor(server.url);
    const run = await runClient(client, { message: "Delete the record" });
    expect(run.error).toBeUndefined();
    const call = client.messages.flatMap((message) =>
      message.role === "assistant" ? (message.toolCalls ?? []) : [],
    )[0];
    expect(JSON.parse(call!.function.arguments)).toEqual({ ids: [registeredSecretPlaceholder] });
    expect(JSON.stringify(client.messages)).not.toContain("k3y9911");
    expect(server.runs).toEqual([]);
  } finally {
    await server.close();
  }
});

it("sends a gated call's arguments exactly as the person is asked about them: a JWT-shaped host label is not masked by a pattern", async () => {
  directory = await mkdtemp(join(tmpdir(), "switchyard-ag-ui-"));
  // A host a credential pattern would match: the person must see it as it is.
  const url = "https://eyJhbGciOiJub25lIn0.attacker-exfil.net/orders";
  const tool = defineTool({
    name: "create_hook",
    description: "Creates a webhook.",
    parameters: z.object({ url: z.string() }),
    needsApproval: true,
    execute: async () => ({ created: true }),
  });
  const approver = new AgUiApprover();
  const runStore = new FileRunStore({ directory });
  const agent = new Agent({
    model: new ScriptedModel([
      { toolCalls: [{ name: "create_hook", arguments: { url }, id: "call_1" }] },
    ]),
    tools: [tool],
    approver,
    runStore,
  });
  const handler = createAgUiHandler({ agent, approver, runStore, authorize: () => "ada" });
  const response = await handler(userMessageRequest("Add the hook"));
  const events = (await response.text())
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)) as BaseEvent & { delta?: string });
  const streamed = events
    .filter((event) => event.type === "TOOL_CALL_ARGS")
    .map((event) => event.delta)
    .join("");
  expect(JSON.parse(streamed)).toEqual({ url });
});
