import type { ServiceRecord } from "./order-types.js";
import type { PreparedItem } from "./write-in-batches.js";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in its 8-4-4-4-12 hexadecimal form (any version). */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && uuidPattern.test(value);
}

/** A callback id to delete: sent only when it is a UUID. */
export function prepareCallbackId(value: unknown): PreparedItem<string> {
  if (isUuid(value)) return { key: value, item: value };
  return {
    key: keyOf(value),
    problem: "not a valid UUID (expected 8-4-4-4-12 hexadecimal digits, as listCallbacks returns)",
  };
}

/** A record to create: sent only when it is an object with a customer_identifier. */
export function prepareNewRecord(value: unknown): PreparedItem<ServiceRecord> {
  return prepareRecord(value, false);
}

/** An update: sent only when it has a customer_identifier and at least one change. */
export function prepareUpdate(value: unknown): PreparedItem<ServiceRecord> {
  return prepareRecord(value, true);
}

/** An order identifier to cancel: sent only when it is a non-empty string. */
export function prepareIdentifier(value: unknown): PreparedItem<string> {
  if (typeof value === "string" && value.trim() !== "") return { key: value, item: value };
  return {
    key: keyOf(value),
    problem: "an order identifier must be a non-empty string (the order's customer_identifier)",
  };
}

function prepareRecord(value: unknown, needsChanges: boolean): PreparedItem<ServiceRecord> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      key: "",
      problem: `each item must be an object with a customer_identifier, got ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}`,
    };
  }
  const record = value as ServiceRecord;
  const identifier: unknown = record.customer_identifier;
  if (typeof identifier !== "string" || identifier.trim() === "") {
    return {
      key: keyOf(identifier),
      problem:
        "missing customer_identifier: every item needs a non-empty string customer_identifier to be matched with its result",
    };
  }
  if (needsChanges && Object.keys(record).every((key) => key === "customer_identifier")) {
    return {
      key: identifier,
      problem: "no changes given: add the fields to update next to customer_identifier",
    };
  }
  return { key: identifier, item: record };
}

function keyOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "";
}
