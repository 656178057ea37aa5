import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { ApprovalAuditRecord } from "../../../src/agent/approval/approval-audit-record.js";
import type { ApprovalPolicy } from "../../../src/agent/approval/approval-policy.js";
import { OrderClient } from "../../../src/clients/orders/order-client.js";
import { type OrdersSimulator, startOrdersSimulator } from "../../../src/simulators/index.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { type OrderToolsOptions, orderTools } from "../../../src/tools/orders/order-tools.js";
import { capturingLogger } from "../fixtures.js";

// The tool sets' approval options are rules of the agent's one approval
// policy: named in the decisions they make, and outranked by its own rules.

let orders: OrdersSimulator;

beforeAll(async () => {
  orders = await startOrdersSimulator();
});

beforeEach(() => orders.reset());

afterAll(() => orders.close());

function orderClient(environment: "sandbox" | "production" = "sandbox"): OrderClient {
  return new OrderClient({ baseUrl: orders.url, token: orders.token, environment });
}

/** One call of `name` through an agent with these tool-set options and policy. */
async function runOne(
  name: string,
  args: Record<string, unknown>,
  options: {
    tools?: OrderToolsOptions;
    policy?: ApprovalPolicy;
    approver?: ScriptedApprover;
    environment?: "sandbox" | "production";
  } = {},
) {
  const audited: ApprovalAuditRecord[] = [];
  const agent = new Agent({
    model: new ScriptedModel([{ toolCalls: [{ name, arguments: args }] }, { text: "done" }]),
    tools: orderTools(orderClient(options.environment), options.tools),
    ...(options.approver ? { approver: options.approver } : {}),
    ...(options.policy ? { approvalPolicy: options.policy } : {}),
    onApprovalDecided: (record) => {
      audited.push(record);
    },
  });
  const result = await agent.run("do it");
  return { call: result.steps[0]?.toolCalls[0], audited };
}

function updateOrder(): Record<string, unknown> {
  const [order] = orders.orders();
  if (!order) throw new Error("the simulator has no order");
  return { orders: [{ customer_identifier: order.customer_identifier, note: "gift wrap" }] };
}

function callbackIds(): string[] {
  return orders.callbacks().map((callback) => callback.id);
}

describe("tool-set options as rules of the approval policy", () => {
  it("runWithoutApproval is an allow rule named in the call's approval record and audit record", async () => {
    const { call, audited } = await runOne("update_orders", updateOrder(), {
      tools: { runWithoutApproval: ["update_orders"] },
    });
    expect(call?.status).toBe("succeeded");
    expect(call?.approval).toMatchObject({
      outcome: "approved",
      rule: "orderTools: runWithoutApproval",
    });
    expect(audited).toEqual([
      expect.objectContaining({
        action: "update_orders",
        outcome: "approved",
        decidedBy: "policy",
        rule: "orderTools: runWithoutApproval",
      }),
    ]);
  });

  it("a needsApproval function decides each call as a rule: one it lets run is recorded, one it gates asks", async () => {
    const tools: OrderToolsOptions = {
      needsApproval: { delete_callbacks: ({ callback_ids }) => callback_ids.length > 1 },
    };
    const [first, second, third] = callbackIds();
    const single = await runOne("delete_callbacks", { callback_ids: [first] }, { tools });
    expect(single.call?.status).toBe("succeeded");
    expect(single.call?.approval).toMatchObject({
      outcome: "approved",
      rule: "orderTools: needsApproval",
    });
    expect(single.audited).toEqual([
      expect.objectContaining({ decidedBy: "policy", rule: "orderTools: needsApproval" }),
    ]);
    const approver = new ScriptedApprover(["deny"]);
    const pair = await runOne(
      "delete_callbacks",
      { callback_ids: [second, third] },
      { tools, approver },
    );
    expect(approver.requests).toHaveLength(1);
    expect(pair.call?.approval).toMatchObject({ outcome: "refused", code: "denied" });
    expect(callbackIds()).toEqual(expect.arrayContaining([second, third]));
  });

  it("a deny rule of the policy wins over runWithoutApproval; where it does not hold, the option's rule decides", async () => {
    const tools: OrderToolsOptions = { runWithoutApproval: ["update_orders"] };
    const policy: ApprovalPolicy = {
      rules: [
        {
          name: "no production updates",
          tool: "update_orders",
          decision: "deny",
          when: (_args, target) => target?.environment === "production",
        },
      ],
    };
    const production = await runOne("update_orders", updateOrder(), {
      tools,
      policy,
      environment: "production",
    });
    expect(production.call?.status).toBe("refused");
    expect(production.call?.approval).toMatchObject({
      outcome: "refused",
      code: "policy_denied",
      rule: "no production updates",
    });
    expect(orders.requests.filter((request) => request.method !== "GET")).toHaveLength(0);
    const sandbox = await runOne("update_orders", updateOrder(), { tools, policy });
    expect(sandbox.call?.approval).toMatchObject({
      outcome: "approved",
      rule: "orderTools: runWithoutApproval",
    });
  });

  it("an ask rule of the policy wins over runWithoutApproval, and shadow mode leaves the option deciding", async () => {
    const tools: OrderToolsOptions = { runWithoutApproval: ["update_orders"] };
    const ask = { name: "ask about updates", tool: "update_orders", decision: "ask" } as const;
    const approver = new ScriptedApprover(["deny"]);
    const asked = await runOne("update_orders", updateOrder(), {
      tools,
      policy: { rules: [ask] },
      approver,
    });
    expect(approver.requests).toHaveLength(1);
    expect(asked.call?.approval).toMatchObject({ outcome: "refused", code: "denied" });
    const shadowed = await runOne("update_orders", updateOrder(), {
      tools,
      policy: { shadow: true, rules: [ask] },
    });
    expect(shadowed.call?.approval).toEqual(
      expect.objectContaining({
        outcome: "approved",
        rule: "orderTools: runWithoutApproval",
        policy: { decision: "ask", rule: "ask about updates" },
      }),
    );
  });

  it("a needsApproval function that throws asks, and the log names its rule", async () => {
    const captured = capturingLogger();
    const approver = new ScriptedApprover(["deny"]);
    const [first] = callbackIds();
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "delete_callbacks", arguments: { callback_ids: [first] } }] },
        { text: "done" },
      ]),
      tools: orderTools(orderClient(), {
        needsApproval: {
          delete_callbacks: () => {
            throw new Error("the rule's lookup failed");
          },
        },
      }),
      approver,
      logger: captured.logger,
    });
    await agent.run("do it");
    expect(approver.requests).toHaveLength(1);
    expect(captured.lines).toContainEqual(
      expect.objectContaining({ level: 40, rule: "orderTools: needsApproval" }),
    );
    expect(callbackIds()).toContain(first);
  });

  it("lists the tools it turns off in ungatedTools, and warns once naming the rule", () => {
    const captured = capturingLogger();
    const agent = new Agent({
      model: new ScriptedModel([]),
      tools: orderTools(orderClient(), { runWithoutApproval: ["update_orders", "cancel_orders"] }),
      logger: captured.logger,
    });
    expect(agent.ungatedTools).toEqual(
      expect.arrayContaining(["update_orders", "cancel_orders", "create_orders"]),
    );
    expect(captured.lines.filter((line) => line.level === 40)).toEqual([
      expect.objectContaining({
        tools: ["update_orders", "cancel_orders"],
        rule: "orderTools: runWithoutApproval",
      }),
    ]);
  });

  it("a policy rule may not take the name of a rule the tools' options make", () => {
    const build = () =>
      new Agent({
        model: new ScriptedModel([]),
        tools: orderTools(orderClient(), { runWithoutApproval: ["update_orders"] }),
        approvalPolicy: {
          rules: [
            { name: "orderTools: runWithoutApproval", tool: "cancel_orders", decision: "allow" },
          ],
        },
      });
    expect(build).toThrow(
      'approvalPolicy.rules[0].name "orderTools: runWithoutApproval" is the name of a rule a tool\'s options make; choose another',
    );
  });
});
