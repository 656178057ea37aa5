import nock from "nock";
import { afterEach, beforeAll, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { ModelMessage, ToolModelMessage } from "../../src/agent/model-message.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { orderTools } from "../../src/tools/orders/order-tools.js";
import {
  interaction,
  makeApprover,
  makeOrderClient,
  messagingOrigin,
  nockDeleteCallbacks,
  nockListCallbacks,
  nockReadiness,
  nockSendQuestion,
  retiredIds,
  sentFingerprint,
} from "./approval-test-kit.js";

beforeAll(() => {
  nock.disableNetConnect();
});

afterEach(() => {
  nock.cleanAll();
});

const retiredHost = "hooks.old-warehouse.example";

function lastToolResult(messages: readonly ModelMessage[]): Record<string, unknown> {
  const last = messages.at(-1) as ToolModelMessage;
  return JSON.parse(last.content) as Record<string, unknown>;
}

it("lists, asks, deletes once approved, and reports, all over HTTP", async () => {
  const deleteBodies: unknown[] = [];
  const sent: Array<Record<string, unknown>> = [];
  nockListCallbacks(2);
  nockDeleteCallbacks(deleteBodies);
  nockReadiness();
  nockSendQuestion(sent);
  nock(messagingOrigin)
    .get("/v1/interactions/i_1")
    .reply(200, () =>
      interaction("answered", { optionId: "approve", fingerprint: sentFingerprint(sent) }),
    );

  let urlsById = new Map<string, string>();
  const model = new ScriptedModel([
    { toolCalls: [{ name: "list_callbacks", arguments: { message_type: "all" } }] },
    (request) => {
      const listed = lastToolResult(request.messages).callbacks as Array<{
        id: string;
        url: string;
      }>;
      const matches = listed.filter((callback) => new URL(callback.url).hostname === retiredHost);
      urlsById = new Map(matches.map((callback) => [callback.id, callback.url]));
      return {
        toolCalls: [
          {
            name: "delete_callbacks",
            arguments: { callback_ids: matches.map((callback) => callback.id) },
          },
        ],
      };
    },
    (request) => {
      const outcome = lastToolResult(request.messages);
      const results = outcome.results as Array<{ id: string; status: string }>;
      const urls = results
        .filter((entry) => entry.status === "success")
        .map((entry) => urlsById.get(entry.id));
      return {
        text: `Deleted ${String(outcome.deleted)} callbacks that pointed at ${retiredHost}: ${urls.join(", ")}. ${String(outcome.failed)} failed.`,
      };
    },
  ]);
  const agent = new Agent({
    model,
    tools: orderTools(makeOrderClient()),
    approver: makeApprover(),
    instructions: "You keep the order service's callbacks tidy.",
  });

  const result = await agent.run(`Remove every callback that points at ${retiredHost}.`);

  expect(result.status).toBe("completed");
  expect(result.output).toBe(
    `Deleted 2 callbacks that pointed at ${retiredHost}: https://${retiredHost}/acme/orders, https://${retiredHost}/acme/asn. 0 failed.`,
  );
  expect(deleteBodies).toEqual([retiredIds]);
  expect(nock.pendingMocks()).toEqual([]);

  expect(result.messages.map((message) => message.role)).toEqual([
    "system",
    "user",
    "assistant",
    "tool",
    "assistant",
    "tool",
    "assistant",
  ]);
  const [, , listCall, listed, deleteCall, deleted] = result.messages;
  expect(listCall).toMatchObject({
    tool_calls: [{ function: { name: "list_callbacks", arguments: '{"message_type":"all"}' } }],
  });
  expect(JSON.parse((listed as ToolModelMessage).content)).toEqual({
    callbacks: [
      {
        id: "0b1d8f3e-3c4a-4f57-9a31-6d1f2b7c9e01",
        url: "https://hooks.acme-shop.example/webhooks/orders",
        message_type: "orderEvent",
        api_version: "1.0",
      },
      {
        id: retiredIds[0],
        url: `https://${retiredHost}/acme/orders`,
        message_type: "orderEvent",
        api_version: "0.9",
      },
      {
        id: retiredIds[1],
        url: `https://${retiredHost}/acme/asn`,
        message_type: "inboundShipmentEvent",
        api_version: "0.9",
      },
    ],
    total: 3,
    shown: 3,
    omitted: 0,
  });
  expect(deleteCall).toMatchObject({
    tool_calls: [{ function: { name: "delete_callbacks" } }],
  });
  expect(JSON.parse((deleted as ToolModelMessage).content)).toEqual({
    deleted: 2,
    failed: 0,
    results: retiredIds.map((id) => ({ id, status: "success" })),
  });
  expect(result.steps.map((step) => step.toolCalls.map((call) => call.status))).toEqual([
    ["succeeded"],
    ["succeeded"],
    [],
  ]);
  expect(result.steps[1]?.toolCalls[0]?.approval).toMatchObject({ outcome: "approved" });
  expect(JSON.stringify(result.messages)).not.toContain("keep-this-secret");
});
