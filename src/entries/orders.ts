/**
 * `switchyard-agents/orders`: the order management service's records, routes,
 * environments and limits, beside `OrderClient` from the main entry.
 *
 * @module switchyard-agents/orders
 */
export * from "../clients/orders/index.js";
