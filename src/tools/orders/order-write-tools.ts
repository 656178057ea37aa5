import type { BatchResult } from "../../clients/orders/order-types.js";
import { defineTool } from "../define-tool.js";
import { scrubResult } from "../scrub-result.js";
import type { ActionDetail, NeedsApproval, Tool } from "../tool.js";
import { describeOrderCancellation } from "./describe-order-cancellation.js";
import type { OrderToolArguments } from "./order-tool-names.js";
import { maximumOrdersPerCall, orderToolSchemas } from "./order-tool-schemas.js";
import type { OrderToolsClient } from "./order-tools-client.js";

/** Result of create_orders, update_orders and cancel_orders: one entry per order, in the order given. */
export interface OrderBatchResult {
  records_submitted: number;
  records_succeeded: number;
  records_failed: number;
  results: Array<{ customer_identifier: string; status: string; error_message?: string }>;
}

const outcomeText =
  "Returns {records_submitted, records_succeeded, records_failed, results: [{customer_identifier, status, error_message?}]}, one result per order in the order given; a failed order does not stop the others, so read each status.";

/** create_orders: creates orders in one call per batch. */
export function createOrdersTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["create_orders"]>,
): Tool<OrderToolArguments["create_orders"], OrderBatchResult> {
  return defineTool({
    name: "create_orders",
    description: `Creates orders. Each order is an object with a unique, non-empty customer_identifier (your reference, used to match it with its result) and the order's fields. 1 to ${maximumOrdersPerCall} orders per call. ${outcomeText}`,
    parameters: orderToolSchemas().createOrdersParameters,
    needsApproval,
    execute: async ({ orders }, { signal }) =>
      toOrderBatchResult(await client.createOrders(orders, { signal })),
  });
}

/** update_orders: changes fields of existing orders; needs approval by default. */
export function updateOrdersTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["update_orders"]>,
): Tool<OrderToolArguments["update_orders"], OrderBatchResult> {
  return defineTool({
    name: "update_orders",
    description: `Updates existing orders: each item is {customer_identifier, ...the fields to change}, with at least one field to change. 1 to ${maximumOrdersPerCall} orders per call. A human is asked to approve the call first (unless the application turned that off). ${outcomeText} If the result has error "approval_refused", nothing was changed: tell the user the reason and do not retry the same call unless they ask.`,
    parameters: orderToolSchemas().updateOrdersParameters,
    needsApproval,
    destructive: true,
    idempotent: true,
    describeAction: ({ orders }) => {
      const details: ActionDetail[] = [];
      for (const { customer_identifier, ...changes } of orders) {
        details.push({ label: "order", value: customer_identifier });
        details.push({ label: "new values (JSON)", text: JSON.stringify(changes) });
      }
      return {
        summary:
          orders.length === 1
            ? "Update 1 order: the fields below are overwritten with the new values"
            : `Update ${orders.length} orders: the fields below are overwritten with the new values`,
        details,
        irreversible: true,
      };
    },
    execute: async ({ orders }, { signal }) =>
      toOrderBatchResult(await client.updateOrders(orders, { signal })),
  });
}

/** cancel_orders: cancels orders by identifier; needs approval by default. */
export function cancelOrdersTool(
  client: OrderToolsClient,
  needsApproval: NeedsApproval<OrderToolArguments["cancel_orders"]>,
): Tool<OrderToolArguments["cancel_orders"], OrderBatchResult> {
  return defineTool({
    name: "cancel_orders",
    description: `Cancels orders by their customer_identifier (1 to ${maximumOrdersPerCall} per call). A cancelled order is not fulfilled and the cancellation cannot be undone, so a human is asked to approve the call first. ${outcomeText} If the result has error "approval_refused", nothing was cancelled: tell the user the reason and do not retry the same call unless they ask.`,
    parameters: orderToolSchemas().cancelOrdersParameters,
    needsApproval,
    destructive: true,
    idempotent: true,
    describeAction: ({ customer_identifiers }, context) =>
      describeOrderCancellation(client, customer_identifiers, context),
    execute: async ({ customer_identifiers }, { signal }) =>
      toOrderBatchResult(await client.cancelOrders(customer_identifiers, { signal })),
  });
}

function toOrderBatchResult(batch: BatchResult): OrderBatchResult {
  return scrubResult({
    records_submitted: batch.records_submitted,
    records_succeeded: batch.records_succeeded,
    records_failed: batch.records_failed,
    results: batch.results.map((entry) => ({
      customer_identifier: entry.customer_identifier,
      status: entry.status,
      ...(typeof entry.error_message === "string" ? { error_message: entry.error_message } : {}),
    })),
  });
}
