import type { SeededRandom } from "../http/seeded-random.js";
import { addHours, toRfc3339 } from "../http/timestamps.js";
import type { CallbackMessageType } from "./message-types.js";
import type { CallbackRecord } from "./orders-state.js";

/** The retired webhook host; four seeded callbacks still point at it. */
export const retiredCallbackHost = "hooks.old-warehouse.example";

const seededCallbacks: readonly (readonly [CallbackMessageType, string, boolean])[] = [
  ["orderEvent", "https://hooks.acme-shop.example/webhooks/orders", true],
  ["orderEvent", `https://${retiredCallbackHost}/acme/orders`, false],
  ["skuInventoryChange", "https://erp.acme-shop.example/inventory/sync", true],
  ["skuInventoryChange", `https://${retiredCallbackHost}/acme/inventory`, false],
  ["orderUpdateResolution", "https://hooks.acme-shop.example/webhooks/order-updates", true],
  ["orderCancelResolution", "https://hooks.acme-shop.example/webhooks/order-cancellations", true],
  ["inboundShipmentEvent", "https://erp.acme-shop.example/receiving/asn", false],
  ["inboundShipmentEvent", `https://${retiredCallbackHost}/acme/asn`, true],
  ["rmaEvent", "https://hooks.acme-shop.example/webhooks/returns", true],
  ["rmaEvent", `https://${retiredCallbackHost}/acme/rma`, false],
  // Same retired vendor, different host: a host match must leave this one alone.
  ["snapshotReady", "https://reports.old-warehouse.example/acme/snapshots", false],
  ["snapshotReady", "https://erp.acme-shop.example/inventory/snapshots", true],
];

/** Twelve callbacks over all seven types; four on the retired host. */
export function seedCallbacks(
  random: SeededRandom,
  referenceTime: Date,
  sealToken: (token: string) => string,
): CallbackRecord[] {
  return seededCallbacks.map(([messageType, url, hasToken], index) => {
    const record: CallbackRecord = {
      id: random.uuid(),
      url,
      message_type: messageType,
      api_version: url.includes("old-warehouse") ? "0.9" : "1.0",
      created_at: toRfc3339(addHours(referenceTime, -24 * (540 - index * 31))),
    };
    if (hasToken) record.token = sealToken(`verify-${random.characters(24)}`);
    return record;
  });
}
