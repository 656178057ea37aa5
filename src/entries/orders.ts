/**
 * `switchyard-agents/orders`: the order management service's records, routes,
 * environments and limits, beside `OrderClient` from the main entry.
 */
export * from "../clients/orders/index.js";
