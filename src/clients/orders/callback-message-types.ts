/**
 * The message types a callback can subscribe to (docs/contract.md §2, "Callback message
 * types"). Holds use a different list: see `callbackHoldTypes`.
 */
export const callbackMessageTypes = [
  "skuInventoryChange",
  "orderEvent",
  "orderUpdateResolution",
  "orderCancelResolution",
  "inboundShipmentEvent",
  "rmaEvent",
  "snapshotReady",
] as const;

/** One callback message type, e.g. `orderEvent`. */
export type CallbackMessageType = (typeof callbackMessageTypes)[number];

/** The `message_type` filter of `listCallbacks`: a message type, or `all`. */
export type CallbackMessageTypeFilter = CallbackMessageType | "all";

/** True when `value` is one of the seven callback message types. */
export function isCallbackMessageType(value: unknown): value is CallbackMessageType {
  return typeof value === "string" && (callbackMessageTypes as readonly string[]).includes(value);
}
