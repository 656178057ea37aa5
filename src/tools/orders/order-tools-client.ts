import type { OrderClient } from "../../clients/orders/order-client.js";

/** The `OrderClient` methods the order tools call, so a wrapper or a test double can stand in. */
export type OrderToolsClient = Pick<
  OrderClient,
  | "listCallbacks"
  | "createCallbacks"
  | "deleteCallbacks"
  | "listCallbackHolds"
  | "holdCallbacks"
  | "releaseCallbackHolds"
  | "listOrders"
  | "createOrders"
  | "updateOrders"
  | "cancelOrders"
  | "listSkus"
  | "listInventory"
  | "listReturns"
  | "listInboundShipments"
  | "listOutboundShipments"
>;

/** The method names of `OrderToolsClient`, checked when the tools are built. */
export const orderToolsClientMethods: readonly (keyof OrderToolsClient)[] = [
  "listCallbacks",
  "createCallbacks",
  "deleteCallbacks",
  "listCallbackHolds",
  "holdCallbacks",
  "releaseCallbackHolds",
  "listOrders",
  "createOrders",
  "updateOrders",
  "cancelOrders",
  "listSkus",
  "listInventory",
  "listReturns",
  "listInboundShipments",
  "listOutboundShipments",
];
