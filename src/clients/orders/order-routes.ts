import { ConfigurationError } from "../../errors/configuration-error.js";

/** One operation of the order management service: its method and its path below the base URL. */
export interface OrderRoute {
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  /** Path appended to `baseUrl` (a leading `/` is relative to the base, not the host). */
  path: string;
}

/**
 * Where each order management operation lives (seed 000 and CONTRACT §2).
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
export type OrderRouteOverrides = Partial<Record<OrderRouteName, Partial<OrderRoute>>>;

const methods = new Set(["GET", "POST", "PUT", "DELETE", "PATCH"]);

/**
 * Merges `overrides` over the default table, collecting every problem
 * (unknown operation, bad method, missing path) into one `ConfigurationError`.
 */
export function resolveOrderRoutes(overrides: OrderRouteOverrides = {}): OrderRoutes {
  const problems: string[] = [];
  const resolved = {} as OrderRoutes;
  for (const name of Object.keys(overrides)) {
    if (!Object.hasOwn(orderRoutes, name)) {
      problems.push(
        `routes.${name} is not an order management operation: use one of ${Object.keys(orderRoutes).join(", ")}`,
      );
    }
  }
  for (const [name, defaults] of Object.entries(orderRoutes) as [OrderRouteName, OrderRoute][]) {
    const route: OrderRoute = { ...defaults, ...overrides[name] };
    if (!methods.has(route.method)) {
      problems.push(
        `routes.${name}.method "${String(route.method)}" is not an HTTP method: use GET, POST, PUT, DELETE or PATCH`,
      );
    }
    if (typeof route.path !== "string" || route.path.trim() === "") {
      problems.push(`routes.${name}.path must be a non-empty string such as "${defaults.path}"`);
    }
    resolved[name] = route;
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return resolved;
}
