import type { output } from "zod";
import type { OrderToolSchemas } from "./order-tool-schemas.js";

/** Names of the tools `orderTools` builds, in the order it returns them. */
export const orderToolNames = [
  "list_callbacks",
  "create_callbacks",
  "delete_callbacks",
  "list_callback_holds",
  "hold_callbacks",
  "release_callback_holds",
  "list_orders",
  "create_orders",
  "update_orders",
  "cancel_orders",
  "list_skus",
  "list_inventory",
  "list_returns",
  "list_inbound_shipments",
  "list_outbound_shipments",
] as const;

/** One order tool's name, e.g. `delete_callbacks`. */
export type OrderToolName = (typeof orderToolNames)[number];

type ListArguments = output<OrderToolSchemas["listRecordsParameters"]>;

/** The parsed arguments each order tool runs with (what a `needsApproval` function receives). */
export interface OrderToolArguments {
  list_callbacks: output<OrderToolSchemas["listCallbacksParameters"]>;
  create_callbacks: output<OrderToolSchemas["createCallbacksParameters"]>;
  delete_callbacks: output<OrderToolSchemas["deleteCallbacksParameters"]>;
  list_callback_holds: output<OrderToolSchemas["listCallbackHoldsParameters"]>;
  hold_callbacks: output<OrderToolSchemas["holdCallbacksParameters"]>;
  release_callback_holds: output<OrderToolSchemas["releaseCallbackHoldsParameters"]>;
  list_orders: ListArguments;
  create_orders: output<OrderToolSchemas["createOrdersParameters"]>;
  update_orders: output<OrderToolSchemas["updateOrdersParameters"]>;
  cancel_orders: output<OrderToolSchemas["cancelOrdersParameters"]>;
  list_skus: ListArguments;
  list_inventory: ListArguments;
  list_returns: ListArguments;
  list_inbound_shipments: ListArguments;
  list_outbound_shipments: ListArguments;
}

/**
 * Which order tools need a human's approval unless the options say
 * otherwise: the destructive ones (deleting callbacks, holding callbacks,
 * whose held events are lost, and cancelling orders), creating callbacks (a
 * callback sends every future event of its type, with the order data, to
 * any https address) and updating orders.
 */
export const defaultOrderToolApprovals: Readonly<Record<OrderToolName, boolean>> = Object.freeze({
  list_callbacks: false,
  create_callbacks: true,
  delete_callbacks: true,
  list_callback_holds: false,
  hold_callbacks: true,
  release_callback_holds: false,
  list_orders: false,
  create_orders: false,
  update_orders: true,
  cancel_orders: true,
  list_skus: false,
  list_inventory: false,
  list_returns: false,
  list_inbound_shipments: false,
  list_outbound_shipments: false,
});
