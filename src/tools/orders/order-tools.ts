import type { AnyTool } from "../tool.js";
import {
  checkToolSetClient,
  clientTarget,
  finishToolSet,
  type ToolSetOptions,
  toolSetApprovalRules,
  withClientSecrets,
} from "../tool-set-options.js";
import { compileCallbackHostPatterns } from "./callback-host-patterns.js";
import { createCallbacksTool, deleteCallbacksTool, listCallbacksTool } from "./callback-tools.js";
import {
  holdCallbacksTool,
  listCallbackHoldsTool,
  releaseCallbackHoldsTool,
} from "./hold-tools.js";
import { listRecordsTool } from "./list-tools.js";
import {
  defaultOrderToolApprovals,
  type OrderToolArguments,
  type OrderToolName,
} from "./order-tool-names.js";
import { type OrderToolsClient, orderToolsClientMethods } from "./order-tools-client.js";
import { cancelOrdersTool, createOrdersTool, updateOrdersTool } from "./order-write-tools.js";

/** Options of `orderTools`. */
export interface OrderToolsOptions extends ToolSetOptions<OrderToolArguments> {
  /**
   * Callback hosts trusted to receive the order service's events: a
   * create_callbacks call whose every URL is `https:` to one of these hosts
   * needs no approval (the rule `orderTools: allowedCallbackHosts` of the
   * agent's approval policy, named in its record). `hooks.example.com` is that host; `*.example.com` is
   * any host under `example.com`. Other creations still ask.
   *
   * @example
   * orderTools(orders, { allowedCallbackHosts: ["hooks.example.com", "*.internal.example.com"] })
   */
  allowedCallbackHosts?: readonly string[] | undefined;
}

/**
 * The order-management tools, over one `OrderClient`: list_callbacks,
 * create_callbacks, delete_callbacks, list_callback_holds, hold_callbacks,
 * release_callback_holds, list_orders, create_orders, update_orders,
 * cancel_orders, list_skus, list_inventory, list_returns,
 * list_inbound_shipments and list_outbound_shipments. Token and secret
 * operations are not offered to the model.
 *
 * create_callbacks, delete_callbacks, hold_callbacks, update_orders and
 * cancel_orders need a human's approval (`defaultOrderToolApprovals`);
 * `options.needsApproval` adds approval or decides per call,
 * `options.allowedCallbackHosts` lets callbacks to trusted hosts be created
 * without a question, and `options.runWithoutApproval` turns a default
 * approval off: each a rule of the agent's approval policy, named after the
 * option (`orderTools: runWithoutApproval`) in the decisions it makes. Every tool names the client's host, account and environment
 * in its approval question, and the environment is part of the fingerprint.
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
export function orderTools(
  orderClient: OrderToolsClient,
  options?: OrderToolsOptions,
): AnyTool<OrderToolName>[] {
  checkToolSetClient(
    "orderTools",
    orderClient,
    orderToolsClientMethods,
    "an OrderClient, e.g. new OrderClient({ host, accountSlug, token })",
  );
  const rules = toolSetApprovalRules<OrderToolArguments>(
    "orderTools",
    defaultOrderToolApprovals,
    options,
  );
  if (options?.allowedCallbackHosts !== undefined) {
    const allowed = compileCallbackHostPatterns("orderTools", options.allowedCallbackHosts);
    rules.create_callbacks = [
      ...(rules.create_callbacks ?? []),
      {
        name: "orderTools: allowedCallbackHosts",
        decide: (args) =>
          args.callbacks.every((callback) => allowed(callback.url)) ? "allow" : undefined,
      },
    ];
  }
  const client = orderClient;
  const asks = defaultOrderToolApprovals;
  const tools = [
    listCallbacksTool(client, asks.list_callbacks),
    createCallbacksTool(client, asks.create_callbacks),
    deleteCallbacksTool(client, asks.delete_callbacks),
    listCallbackHoldsTool(client, asks.list_callback_holds),
    holdCallbacksTool(client, asks.hold_callbacks),
    releaseCallbackHoldsTool(client, asks.release_callback_holds),
    listRecordsTool("list_orders", client, asks.list_orders),
    createOrdersTool(client, asks.create_orders),
    updateOrdersTool(client, asks.update_orders),
    cancelOrdersTool(client, asks.cancel_orders),
    listRecordsTool("list_skus", client, asks.list_skus),
    listRecordsTool("list_inventory", client, asks.list_inventory),
    listRecordsTool("list_returns", client, asks.list_returns),
    listRecordsTool("list_inbound_shipments", client, asks.list_inbound_shipments),
    listRecordsTool("list_outbound_shipments", client, asks.list_outbound_shipments),
  ];
  const environment = (orderClient as { environment?: unknown }).environment;
  return withClientSecrets(
    orderClient,
    finishToolSet(
      tools,
      rules,
      clientTarget("orders", orderClient, { accountInPath: true, environment }),
    ),
  );
}
