import { type Route, type RouteOverrides, resolveRoutes } from "../route-table.js";

/** One operation of the order management service: its method and its path below the base URL. */
export type OrderRoute = Route;

/**
 * Where each order management operation lives (docs/contract.md §2).
 * Pass `routes` to `OrderClient` to override any of them for a service that differs.
 */
export const orderRoutes = {
  createToken: { method: "POST", path: "/secrets" },
  deleteSecretPhrase: { method: "DELETE", path: "/secrets" },
  listCallbacks: { method: "GET", path: "/callbacks" },
  createCallbacks: { method: "POST", path: "/callbacks" },
  deleteCallbacks: { method: "DELETE", path: "/callbacks" },
  listCallbackHolds: { method: "GET", path: "/callback_holds" },
  holdCallbacks: { method: "POST", path: "/callback_holds" },
  releaseCallbackHolds: { method: "DELETE", path: "/callback_holds" },
  listSkus: { method: "GET", path: "/skus" },
  createSkus: { method: "POST", path: "/skus" },
  listInventory: { method: "GET", path: "/inventory" },
  listOrders: { method: "GET", path: "/orders" },
  createOrders: { method: "POST", path: "/orders" },
  updateOrders: { method: "PUT", path: "/orders" },
  cancelOrders: { method: "DELETE", path: "/orders" },
  listReturns: { method: "GET", path: "/returns" },
  createReturns: { method: "POST", path: "/returns" },
  listInboundShipments: { method: "GET", path: "/inbound_shipments" },
  createInboundShipments: { method: "POST", path: "/inbound_shipments" },
  listOutboundShipments: { method: "GET", path: "/outbound_shipments" },
} as const satisfies Record<string, OrderRoute>;

/** Name of one order management operation, e.g. `deleteCallbacks`. */
export type OrderRouteName = keyof typeof orderRoutes;

/** The full route table of an order client. */
export type OrderRoutes = Record<OrderRouteName, OrderRoute>;

/** Overrides for some routes, or only the method or path of one. */
export type OrderRouteOverrides = RouteOverrides<OrderRouteName>;

/**
 * Merges `overrides` over the default table; every problem is named in one
 * `ConfigurationError`.
 */
export function resolveOrderRoutes(overrides: OrderRouteOverrides = {}): OrderRoutes {
  return resolveRoutes("an order management", orderRoutes, overrides);
}
