import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderReport } from "../../examples/order-report.js";
import { type ExampleHarness, startExampleHarness } from "./example-harness.js";

let harness: ExampleHarness;
beforeAll(async () => {
  harness = await startExampleHarness("order-report");
});
afterAll(() => harness.close());

describe("order-report example", () => {
  it.each(["approve", "deny"] as const)(
    "counts every order by status, reading only (person answers %s)",
    async (answer) => {
      harness.reset(answer);
      const { orders, messaging } = harness.simulators;
      const counts = new Map<string, number>();
      for (const order of orders.orders()) {
        counts.set(order.status, (counts.get(order.status) ?? 0) + 1);
      }

      const result = await orderReport.createAgent(harness.services).run(orderReport.defaultTask);

      expect(result.status).toBe("completed");
      expect(result.output).toContain(`There are ${orders.orders().length} orders in total.`);
      for (const [status, count] of counts) expect(result.output).toContain(`${status}: ${count}`);
      const pages = result.steps
        .flatMap((step) => step.toolCalls)
        .map((call) => (call.arguments as { offset: number }).offset);
      expect(pages).toEqual([0, 100, 200]);
      expect(orders.requests.every((request) => request.method === "GET")).toBe(true);
      expect(messaging.messages()).toHaveLength(0);
    },
  );
});
