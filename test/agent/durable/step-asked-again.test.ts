import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/agent.js";
import type { RunState } from "../../../src/agent/durable/run-state.js";
import type { RunStore } from "../../../src/agent/durable/run-store.js";
import type { Model, ModelRequest } from "../../../src/agent/model.js";
import { MessagingClient } from "../../../src/clients/messaging/messaging-client.js";
import { type MessagingSimulator, startMessagingSimulator } from "../../../src/simulators/index.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { messagingTools } from "../../../src/tools/messaging/messaging-tools.js";
import { usePostgresStores } from "../../helpers/postgres-test-database.js";
import { callbackTools, toolMessagesById, useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();
const makePostgresStore = usePostgresStores("asked_again");

/** An ungated write: creates a callback, recording each execution. */
function createCallbackTool() {
  const created: string[] = [];
  const tool = defineTool({
    name: "create_callback",
    description: "Registers a callback URL.",
    parameters: z.object({ url: z.string() }),
    needsApproval: false,
    execute: ({ url }) => {
      created.push(url);
      return { created: url };
    },
  });
  return { tool, created };
}

const createCall = (id: string) => ({
  toolCalls: [{ name: "create_callback", arguments: { url: "https://hooks.example.com/a" }, id }],
});

/** A model that hands `onAsked` each request before answering it, as the run's store then holds it. */
function watching(model: Model, onAsked: (request: ModelRequest) => Promise<void>): Model {
  return {
    complete: async (request, options) => {
      await onAsked(request);
      return model.complete(request, options);
    },
    stream: (request, options) => model.stream(request, options),
  };
}

describe.each([
  ["FileRunStore", async () => new FileRunStore({ directory: await makeDirectory() })],
  ["PostgresRunStore", async () => makePostgresStore()],
])("a step asked of the model again does not write again (%s)", (_name, makeStore) => {
  it("a run resumed from a state saved before the model's answer recognises the write it ran, under a new call id", async () => {
    const store: RunStore = await makeStore();
    const first = createCallbackTool();
    let beforeAnswer: RunState | undefined;
    const model = watching(
      new ScriptedModel([createCall("call_A"), { text: "done" }]),
      async () => {
        beforeAnswer ??= await store.load("again-1");
      },
    );
    const ran = await new Agent({ model, tools: [first.tool], runStore: store }).run("register", {
      runId: "again-1",
    });
    expect(ran.status).toBe("completed");
    expect(first.created).toEqual(["https://hooks.example.com/a"]);
    if (!beforeAnswer) throw new Error("no state was saved before the model's answer");

    // The run goes on from the state saved before that answer (a backup put
    // back, a worker's later saves lost): the model is asked again, and
    // gives the same call a new id.
    await store.save(beforeAnswer);
    const second = createCallbackTool();
    const asked = new ScriptedModel([createCall("call_B"), { text: "done" }]);
    const resumed = await new Agent({ model: asked, tools: [second.tool], runStore: store }).resume(
      "again-1",
      { takeOver: true },
    );
    expect(second.created).toEqual([]);
    const told = toolMessagesById(asked.requests[1]?.messages ?? []).call_B;
    expect(told).toMatchObject({
      error: "outcome_unknown",
      earlier_result: JSON.stringify({ created: "https://hooks.example.com/a" }),
    });
    expect(resumed.outcomeUnknownCalls).toEqual([
      { toolCallId: "call_B", toolName: "create_callback", stepNumber: 1 },
    ]);
  });
});

describe("without a store", () => {
  it("the same suspended state resumed twice by its agent runs the write of the step after once", async () => {
    const suspended = await new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_delete" },
          ],
        },
      ]),
      tools: callbackTools().tools,
      approver: new ScriptedApprover(["pending"]),
    }).run("delete cb-1, then register", { suspendOnApproval: true });
    const state = suspended.state;
    if (!state) throw new Error("the run did not suspend");

    const { tools } = callbackTools();
    const create = createCallbackTool();
    const agent = new Agent({
      model: new ScriptedModel([
        createCall("call_A"),
        { text: "done" },
        createCall("call_B"),
        { text: "done" },
      ]),
      tools: [...tools, create.tool],
      approver: new ScriptedApprover([], { checks: ["approve", "approve"] }),
    });
    await agent.resume(state);
    const again = await agent.resume(state);
    expect(create.created).toEqual(["https://hooks.example.com/a"]);
    expect(again.outcomeUnknownCalls).toEqual([
      { toolCallId: "call_B", toolName: "create_callback", stepNumber: 2 },
    ]);
  });
});

describe("writes the service lets carry an idempotency key", () => {
  let messaging: MessagingSimulator;
  beforeAll(async () => {
    messaging = await startMessagingSimulator({ deliveryStepMs: 1, answer: "never" });
  });
  afterAll(() => messaging.close());

  it("a notification asked again in a resumed step, by another process, carries the same key and is sent once", async () => {
    const suspended = await new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_delete" },
          ],
        },
      ]),
      tools: callbackTools().tools,
      approver: new ScriptedApprover(["pending"]),
    }).run("delete cb-1, then tell", { suspendOnApproval: true });
    const state = suspended.state;
    if (!state) throw new Error("the run did not suspend");
    const notify = (id: string) => ({
      toolCalls: [
        {
          name: "send_notification",
          arguments: { subscription_link_id: messaging.approverLinkId, text: "cb-1 was deleted." },
          id,
        },
      ],
    });
    // Two processes (two agents, nothing shared) resume the same state.
    for (const id of ["call_A", "call_B"]) {
      const client = new MessagingClient({ baseUrl: messaging.url, token: messaging.token });
      const result = await new Agent({
        model: new ScriptedModel([notify(id), { text: "done" }]),
        tools: [...callbackTools().tools, ...messagingTools(client)],
        approver: new ScriptedApprover([], { checks: ["approve"] }),
      }).resume(state);
      expect(result.status).toBe("completed");
    }
    const sent = messaging.messages().filter((message) => message.kind === "notification");
    expect(sent).toHaveLength(1);
  });
});
