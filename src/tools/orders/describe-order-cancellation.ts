import type { ServiceRecord } from "../../clients/orders/order-types.js";
import { describeThrownBriefly } from "../describe-thrown-briefly.js";
import type { ActionDescription, ActionDetail, ToolContext } from "../tool.js";
import type { OrderToolsClient } from "./order-tools-client.js";

/**
 * What cancelling these orders does, for the person asked to approve it:
 * each order's identifier and its state now, as the order service lists it
 * (`GET /orders?customer_identifier=...`), so a delivered or shipped order
 * reads as such rather than as one that "will not be fulfilled". An
 * identifier the service does not list is shown as such; when an order
 * cannot be read, the question says so and why. Identifiers and states are
 * values (quoted and escaped), never the question's own words.
 */
export async function describeOrderCancellation(
  client: Pick<OrderToolsClient, "listOrders">,
  customerIdentifiers: readonly string[],
  context: ToolContext,
): Promise<ActionDescription> {
  const identifiers = [...new Set(customerIdentifiers)];
  const summary =
    identifiers.length === 1
      ? "Cancel 1 order; the cancellation cannot be undone. Its state now is shown below"
      : `Cancel ${identifiers.length} orders; the cancellation cannot be undone. Each order's state now is shown below`;
  const described = await Promise.all(
    identifiers.map((identifier) => describeOrder(client, identifier, context)),
  );
  return { summary, details: described.flat(), irreversible: true };
}

async function describeOrder(
  client: Pick<OrderToolsClient, "listOrders">,
  identifier: string,
  context: ToolContext,
): Promise<ActionDetail[]> {
  let listed: ServiceRecord[];
  try {
    const page = await client.listOrders(
      { customer_identifier: identifier, limit: 100, listType: "summary" },
      { signal: context.signal },
    );
    listed = page.data;
  } catch (error) {
    if (context.signal.aborted) throw error;
    context.logger.warn(
      { error: describeThrownBriefly(error) },
      "could not read an order to describe its cancellation",
    );
    return [
      { label: "order", value: identifier },
      { label: "its state could not be read", value: describeThrownBriefly(error) },
    ];
  }
  // Only a record with exactly this identifier counts: a service that ignores the filter lists others.
  const order = listed.find((record) => record.customer_identifier === identifier);
  if (order) {
    const status = typeof order.status === "string" ? order.status : JSON.stringify(order.status);
    return [
      { label: "order", value: identifier },
      { label: "its state now", value: status ?? "(none given)" },
    ];
  }
  if (listed.length === 0) {
    return [
      { label: "no order has this identifier (nothing is cancelled for it)", value: identifier },
    ];
  }
  return [
    { label: "order", value: identifier },
    {
      label: "its state is unknown",
      value: "the order service did not list this order by its identifier",
    },
  ];
}
