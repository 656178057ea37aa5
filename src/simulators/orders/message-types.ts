/** Message types a callback can subscribe to (docs/contract.md §2); `all` is only a list filter. */
export const callbackMessageTypes = [
  "skuInventoryChange",
  "orderEvent",
  "orderUpdateResolution",
  "orderCancelResolution",
  "inboundShipmentEvent",
  "rmaEvent",
  "snapshotReady",
] as const;

/** One callback message type. */
export type CallbackMessageType = (typeof callbackMessageTypes)[number];

/** Message types that can be held; the service names these differently from callback types. */
export const holdMessageTypes = [
  "skuInventoryChange",
  "orderEvent",
  "shipmentEvent",
  "inboundReceived",
] as const;

/** One hold message type. */
export type HoldMessageType = (typeof holdMessageTypes)[number];

/** True for a callback message type (not `all`). */
export function isCallbackMessageType(value: unknown): value is CallbackMessageType {
  return (callbackMessageTypes as readonly unknown[]).includes(value);
}

/** True for a hold message type. */
export function isHoldMessageType(value: unknown): value is HoldMessageType {
  return (holdMessageTypes as readonly unknown[]).includes(value);
}
