import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { DocsClient } from "../../src/clients/docs/docs-client.js";
import { MessagingClient } from "../../src/clients/messaging/messaging-client.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { type OrdersSimulator, startOrdersSimulator } from "../../src/simulators/index.js";
import { retiredCallbackHost } from "../../src/simulators/orders/seed-callbacks.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { defaultDocsToolApprovals, docsToolNames } from "../../src/tools/docs/docs-tool-names.js";
import { docsTools } from "../../src/tools/docs/docs-tools.js";
import {
  defaultMessagingToolApprovals,
  messagingToolNames,
} from "../../src/tools/messaging/messaging-tool-names.js";
import { messagingTools } from "../../src/tools/messaging/messaging-tools.js";
import {
  defaultOrderToolApprovals,
  type OrderToolArguments,
  orderToolNames,
} from "../../src/tools/orders/order-tool-names.js";
import { type OrderToolsOptions, orderTools } from "../../src/tools/orders/order-tools.js";
import type { AnyTool, NeedsApproval } from "../../src/tools/tool.js";
import { needsApprovalFor } from "./tool-test-kit.js";

let orders: OrdersSimulator;
let orderClient: OrderClient;
const docsClient = new DocsClient({
  baseUrl: "https://docs.example.com/cli/v1",
  token: "docs-token",
});
const messagingClient = new MessagingClient({ baseUrl: "https://messaging.example.com" });

beforeAll(async () => {
  orders = await startOrdersSimulator();
  orderClient = new OrderClient({ baseUrl: orders.url, token: orders.token });
});

beforeEach(() => orders.reset());

afterAll(() => orders.close());

function approvals(tools: readonly AnyTool[]): Record<string, unknown> {
  return Object.fromEntries(tools.map((tool) => [tool.name, tool.needsApproval]));
}

/** The rules each tool's options make, by tool (tools without any left out). */
function optionRules(tools: readonly AnyTool[]): Record<string, unknown> {
  return Object.fromEntries(
    tools.flatMap((tool) => (tool.approvalRules ? [[tool.name, tool.approvalRules]] : [])),
  );
}

const newOrder = {
  orders: [{ customer_identifier: "c-1" }],
};

describe("the tool sets", () => {
  it("offer exactly the documented tools, and no token or secret tool", () => {
    expect(orderTools(orderClient).map((tool) => tool.name)).toEqual([...orderToolNames]);
    expect(docsTools(docsClient).map((tool) => tool.name)).toEqual([...docsToolNames]);
    expect(messagingTools(messagingClient).map((tool) => tool.name)).toEqual([
      ...messagingToolNames,
    ]);
    const all = [
      ...orderTools(orderClient),
      ...docsTools(docsClient),
      ...messagingTools(messagingClient),
    ];
    expect(all.filter((tool) => /token|secret/.test(tool.name))).toEqual([]);
    expect(all).toHaveLength(25);
  });

  it("ask for approval by default before what cannot be undone, creating callbacks and updating orders", () => {
    expect(approvals(orderTools(orderClient))).toEqual(defaultOrderToolApprovals);
    expect(approvals(docsTools(docsClient))).toEqual(defaultDocsToolApprovals);
    expect(approvals(messagingTools(messagingClient))).toEqual(defaultMessagingToolApprovals);
    const gated = [...orderTools(orderClient), ...docsTools(docsClient)]
      .filter((tool) => tool.needsApproval === true)
      .map((tool) => tool.name);
    expect(gated).toEqual([
      "create_callbacks",
      "delete_callbacks",
      "hold_callbacks",
      "update_orders",
      "cancel_orders",
      "push_docs_files",
      "edit_docs_file",
    ]);
  });

  it("describe every gated tool for a model: approval, and not retrying a refusal", () => {
    const gated = [...orderTools(orderClient), ...docsTools(docsClient)].filter(
      (tool) => tool.needsApproval === true,
    );
    for (const tool of gated) {
      expect(tool.description).toMatch(/human is asked to approve/);
      expect(tool.description).toMatch(/approval_refused.*do not retry the same call/);
      expect(tool.describeAction).toBeTypeOf("function");
    }
  });

  it("send strict object schemas, so a misspelt argument is named", () => {
    for (const tool of [
      ...orderTools(orderClient),
      ...docsTools(docsClient),
      ...messagingTools(messagingClient),
    ]) {
      expect(tool.parameters).toMatchObject({ type: "object", additionalProperties: false });
      expect(tool.checkArguments({ unexpected_argument: 1 })).toMatchObject({
        success: false,
        issues: expect.arrayContaining(['(root): Unrecognized key: "unexpected_argument"']),
      });
    }
  });
});

describe("the approval policy option", () => {
  it("turns approval on with a boolean, and off only with runWithoutApproval", async () => {
    const tools = orderTools(orderClient, {
      needsApproval: { create_orders: true },
      runWithoutApproval: ["delete_callbacks"],
    });
    // The defaults are the tools' facts; the options are rules the agent's policy compiles.
    expect(approvals(tools)).toEqual(defaultOrderToolApprovals);
    expect(optionRules(tools)).toEqual({
      create_orders: [{ name: "orderTools: needsApproval", decide: "ask" }],
      delete_callbacks: [{ name: "orderTools: runWithoutApproval", decide: "allow" }],
    });
    expect(await needsApprovalFor(tools, "create_orders", newOrder)).toBe(true);
    const [callbackId] = orders.callbacks().map((callback) => callback.id);
    expect(await needsApprovalFor(tools, "delete_callbacks", { callback_ids: [callbackId] })).toBe(
      false,
    );
    expect(() => orderTools(orderClient, { needsApproval: { update_orders: false } })).toThrow(
      'orderTools: needsApproval.update_orders: false would turn off an approval that is on by default; to let update_orders run without asking anyone, say so with { runWithoutApproval: ["update_orders"] }',
    );
    expect(() =>
      orderTools(orderClient, { runWithoutApproval: ["delete_callback" as never] }),
    ).toThrow(/runWithoutApproval names "delete_callback", which is not one of its tools/);
    const docs = docsTools(docsClient, { runWithoutApproval: ["edit_docs_file"] });
    expect(optionRules(docs)).toEqual({
      edit_docs_file: [{ name: "docsTools: runWithoutApproval", decide: "allow" }],
    });
    const messaging = messagingTools(messagingClient, {
      needsApproval: { send_notification: true },
    });
    expect(optionRules(messaging)).toEqual({
      send_notification: [{ name: "messagingTools: needsApproval", decide: "ask" }],
    });
  });

  it("decides from the arguments with a function", async () => {
    const tools = orderTools(orderClient, {
      needsApproval: { delete_callbacks: (args) => args.callback_ids.length > 1 },
    });
    const [first, second] = orders.callbacks().map((callback) => callback.id);
    expect(await needsApprovalFor(tools, "delete_callbacks", { callback_ids: [first] })).toBe(
      false,
    );
    expect(
      await needsApprovalFor(tools, "delete_callbacks", { callback_ids: [first, second] }),
    ).toBe(true);
  });

  it("is what the agent follows: a call the policy lets through runs, one it gates is refused", async () => {
    const retired = orders
      .callbacks()
      .filter((callback) => new URL(callback.url).hostname === retiredCallbackHost)
      .map((callback) => callback.id);
    const tools = orderTools(orderClient, {
      needsApproval: { delete_callbacks: ({ callback_ids }) => callback_ids.length > 1 },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "delete_callbacks", arguments: { callback_ids: [retired[0]] } },
          { name: "delete_callbacks", arguments: { callback_ids: retired.slice(1) } },
        ],
      },
      { text: "done" },
    ]);
    // No approver: whatever needs approval is refused.
    const result = await new Agent({ model, tools }).run("delete the retired callbacks");
    expect(result.steps[0]?.toolCalls.map((call) => call.status)).toEqual(["succeeded", "refused"]);
    expect(orders.callbacks().map((callback) => callback.id)).not.toContain(retired[0]);
    expect(orders.callbacks().map((callback) => callback.id)).toEqual(
      expect.arrayContaining(retired.slice(1)),
    );
    expect(orders.requests.filter((request) => request.method === "DELETE")).toHaveLength(1);
  });

  it("types each function's arguments after its tool", () => {
    expectTypeOf<NonNullable<OrderToolsOptions["needsApproval"]>["cancel_orders"]>().toEqualTypeOf<
      NeedsApproval<OrderToolArguments["cancel_orders"]> | undefined
    >();
    expectTypeOf<OrderToolArguments["cancel_orders"]>().toEqualTypeOf<{
      customer_identifiers: string[];
    }>();
  });

  it("names an unknown tool and a value that is not a policy", () => {
    const problems = (() => {
      try {
        orderTools(orderClient, {
          needsApproval: { delete_callback: true, cancel_orders: "yes" } as never,
        });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError);
        return (error as ConfigurationError).problems;
      }
      throw new Error("expected a ConfigurationError");
    })();
    expect(problems).toEqual([
      `orderTools: needsApproval names "delete_callback", which is not one of its tools (${orderToolNames.join(", ")})`,
      "orderTools: needsApproval.cancel_orders must be true, false or a function of the arguments, got string",
    ]);
  });

  it("refuses a client without the methods the tools call", () => {
    expect(() => docsTools({ listDocumentations: () => [] } as never)).toThrow(
      /docsTools: the client lacks the method\(s\) getManifest, pullFiles, pushFiles, editFile, checkSite/,
    );
    expect(() => messagingTools(undefined as never)).toThrow(ConfigurationError);
  });
});
