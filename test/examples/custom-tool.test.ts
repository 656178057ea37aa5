import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customTool } from "../../examples/custom-tool.js";
import { lateOrderIdentifier } from "../../src/simulators/orders/seed-orders.js";
import { type ExampleHarness, startExampleHarness } from "./example-harness.js";

let harness: ExampleHarness;
beforeAll(async () => {
  harness = await startExampleHarness("custom-tool");
});
afterAll(() => harness.close());

describe("custom-tool example", () => {
  it("applies a 15 % discount once the person approves", async () => {
    harness.reset("approve");
    const { orders, messaging } = harness.simulators;

    const result = await customTool.createAgent(harness.services).run(customTool.defaultTask);

    expect(result.status).toBe("completed");
    expect(orders.order(lateOrderIdentifier)).toMatchObject({
      discount_percent: 15,
      discount_reason: "it shipped late",
    });
    expect(messaging.interactions()).toHaveLength(1);
    expect(result.output).toMatch(/^Applied the 15% discount/);
  });

  it("leaves the order alone when the person denies", async () => {
    harness.reset("deny");
    const { orders } = harness.simulators;
    const before = orders.order(lateOrderIdentifier);

    const result = await customTool.createAgent(harness.services).run(customTool.defaultTask);

    expect(result.status).toBe("completed");
    expect(orders.order(lateOrderIdentifier)).toEqual(before);
    expect(orders.order(lateOrderIdentifier)).not.toHaveProperty("discount_percent");
    expect(result.output).toMatch(/did not apply .* refused/);
  });

  it("approves a discount of 5 % by its own policy, without asking anyone", async () => {
    harness.reset("deny");
    const { orders, messaging } = harness.simulators;

    const result = await customTool
      .createAgent(harness.services)
      .run(`Give order ${lateOrderIdentifier} a 5% discount because it shipped late.`);

    expect(result.status).toBe("completed");
    expect(orders.order(lateOrderIdentifier)).toMatchObject({ discount_percent: 5 });
    expect(messaging.messages()).toHaveLength(0);
    const call = result.steps.flatMap((step) => step.toolCalls)[0];
    expect(call?.approval).toMatchObject({
      outcome: "approved",
      approvedBy: "policy: discounts up to 5%",
    });
  });

  it("never lets the model ask for more than 50 %", async () => {
    harness.reset("approve");
    const { orders } = harness.simulators;
    const before = orders.order(lateOrderIdentifier);

    const result = await customTool
      .createAgent(harness.services)
      .run(`Give order ${lateOrderIdentifier} an 80% discount because it shipped late.`);

    expect(result.status).toBe("completed");
    expect(orders.order(lateOrderIdentifier)).toEqual(before);
    expect(result.steps[0]?.toolCalls[0]?.status).toBe("invalid_arguments");
  });
});
