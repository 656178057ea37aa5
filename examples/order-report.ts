/**
 * order-report: read-only. Page through every order and summarise them.
 *
 *   node --import tsx examples/order-report.ts
 *   node --import tsx examples/order-report.ts --json | jq .output
 *
 * The same as `switchyard run order-report`.
 */
import { Agent, orderTools } from "switchyard-agents";
import { type ExampleDefinition, runIfMain } from "switchyard-agents/cli";

const instructions = `You report on the order service's orders. You only read; you never change anything.
Call list_orders with limit 100, offset 0 and list_type "summary", then again with offset = next_offset until next_offset is null, so that every order is counted.
Answer with the total number of orders and the count per value of the field the user asks about (status by default).`;

/** The order-report example, as `switchyard run` and the tests run it. */
export const orderReport: ExampleDefinition = {
  name: "order-report",
  description: "Read-only: walk all pages of orders and summarise them by status.",
  defaultTask: "Summarise all orders by status.",
  instructions,
  uses: ["orders"],
  createAgent: (services) =>
    new Agent({
      model: services.model,
      // Read-only by construction: the only tool lists orders. Without an
      // approver, a tool that needed approval would be refused anyway.
      tools: orderTools(services.orders).filter((tool) => tool.name === "list_orders"),
      instructions,
      // One step per page of 100 orders, plus the answer: room for ~4,900 orders.
      maxSteps: 50,
      logger: services.logger,
      // Set for `switchyard run --no-wait` and `switchyard resume`: the run is saved as it goes.
      runStore: services.runStore,
      stateKey: services.stateKey,
      auditLog: services.auditLog,
      approverDirectory: services.approverDirectory,
    }),
};

runIfMain(import.meta.url, orderReport);
