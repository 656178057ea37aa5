import type { AnyTool } from "../tool.js";
import {
  checkToolSetClient,
  resolveApprovalPolicy,
  type ToolSetOptions,
} from "../tool-set-options.js";
import { createCallbacksTool, deleteCallbacksTool, listCallbacksTool } from "./callback-tools.js";
import {
  holdCallbacksTool,
  listCallbackHoldsTool,
  releaseCallbackHoldsTool,
} from "./hold-tools.js";
import { listRecordsTool } from "./list-tools.js";
import { defaultOrderToolApprovals, type OrderToolArguments } from "./order-tool-names.js";
import { type OrderToolsClient, orderToolsClientMethods } from "./order-tools-client.js";
import { cancelOrdersTool, createOrdersTool, updateOrdersTool } from "./order-write-tools.js";

/** Options of `orderTools`. */
export type OrderToolsOptions = ToolSetOptions<OrderToolArguments>;

/**
 * The order-management tools, over one `OrderClient`: list_callbacks,
 * create_callbacks, delete_callbacks, list_callback_holds, hold_callbacks,
 * release_callback_holds, list_orders, create_orders, update_orders,
 * cancel_orders, list_skus, list_inventory, list_returns,
 * list_inbound_shipments and list_outbound_shipments. Token and secret
 * operations are not offered to the model.
 *
 * delete_callbacks, hold_callbacks and cancel_orders need a human's approval
 * (`defaultOrderToolApprovals`); `options.needsApproval` changes that per tool.
 *
 * @throws ConfigurationError when the client lacks a method or an option is wrong.
 *
 * @example
 * const agent = new Agent({
 *   model,
 *   tools: orderTools(orders, { needsApproval: { update_orders: true } }),
 *   approver,
 * });
 */
export function orderTools(orderClient: OrderToolsClient, options?: OrderToolsOptions): AnyTool[] {
  checkToolSetClient(
    "orderTools",
    orderClient,
    orderToolsClientMethods,
    "an OrderClient, e.g. new OrderClient({ host, accountSlug, token })",
  );
  const policy = resolveApprovalPolicy<OrderToolArguments>(
    "orderTools",
    defaultOrderToolApprovals,
    options,
  );
  const client = orderClient;
  return [
    listCallbacksTool(client, policy.list_callbacks),
    createCallbacksTool(client, policy.create_callbacks),
    deleteCallbacksTool(client, policy.delete_callbacks),
    listCallbackHoldsTool(client, policy.list_callback_holds),
    holdCallbacksTool(client, policy.hold_callbacks),
    releaseCallbackHoldsTool(client, policy.release_callback_holds),
    listRecordsTool("list_orders", client, policy.list_orders),
    createOrdersTool(client, policy.create_orders),
    updateOrdersTool(client, policy.update_orders),
    cancelOrdersTool(client, policy.cancel_orders),
    listRecordsTool("list_skus", client, policy.list_skus),
    listRecordsTool("list_inventory", client, policy.list_inventory),
    listRecordsTool("list_returns", client, policy.list_returns),
    listRecordsTool("list_inbound_shipments", client, policy.list_inbound_shipments),
    listRecordsTool("list_outbound_shipments", client, policy.list_outbound_shipments),
  ];
}
