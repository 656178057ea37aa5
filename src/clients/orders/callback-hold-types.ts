/**
 * The message types that can be held (docs/contract.md §2, "Callback hold"). This list
 * differs from `callbackMessageTypes`: `shipmentEvent` and `inboundReceived`
 * exist only here, and most callback types cannot be held.
 */
export const callbackHoldTypes = [
  "skuInventoryChange",
  "orderEvent",
  "shipmentEvent",
  "inboundReceived",
] as const;

/** One holdable message type, e.g. `shipmentEvent`. */
export type CallbackHoldType = (typeof callbackHoldTypes)[number];

/** True when `value` is one of the four holdable message types. */
export function isCallbackHoldType(value: unknown): value is CallbackHoldType {
  return typeof value === "string" && (callbackHoldTypes as readonly string[]).includes(value);
}
