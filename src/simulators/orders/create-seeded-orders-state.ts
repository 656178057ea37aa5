import type { SeededRandom } from "../http/seeded-random.js";
import type { OrdersState } from "./orders-state.js";
import { seedCallbacks } from "./seed-callbacks.js";
import { seedInventory, seedSkus } from "./seed-catalog.js";
import { seedInboundShipments } from "./seed-inbound-shipments.js";
import { seedOrders, seedOutboundShipments, seedReturns } from "./seed-orders.js";

/** The moment seeded data is dated against, so the data is the same on every run. */
export const ordersSeedReferenceTime = new Date("2025-06-02T09:00:00Z");

/**
 * The order simulator's starting data, built only from `random` (a fixed
 * seed gives the same records and ids every time): 12 callbacks, a hold on
 * shipmentEvent, 40 SKUs with inventory, 240 orders, 25 returns, 30 inbound
 * and about 60 outbound shipments.
 */
export function createSeededOrdersState(
  random: SeededRandom,
  sealToken: (token: string) => string,
): OrdersState {
  const referenceTime = ordersSeedReferenceTime;
  const callbacks = seedCallbacks(random, referenceTime, sealToken);
  const skus = seedSkus(random, referenceTime);
  const inventory = seedInventory(random, skus, referenceTime);
  const orders = seedOrders(random, skus, referenceTime);
  return {
    callbacks,
    deletedCallbackIds: new Set(),
    holds: ["shipmentEvent"],
    skus,
    inventory,
    orders,
    returns: seedReturns(random, orders, referenceTime),
    inboundShipments: seedInboundShipments(random, skus, referenceTime),
    outboundShipments: seedOutboundShipments(random, orders),
  };
}
