import { isJsonObject } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import type { OrdersService, OrdersState, StoredRecord } from "./orders-state.js";

/** A list endpoint: where its records live and which fields `list_type=summary` keeps. */
interface ListResource {
  path: string;
  records(state: OrdersState): readonly StoredRecord[];
  summaryFields: readonly string[];
}

const listResources: readonly ListResource[] = [
  {
    path: "/skus",
    records: (state) => state.skus,
    summaryFields: ["id", "customer_identifier", "name", "status"],
  },
  {
    path: "/inventory",
    records: (state) => state.inventory,
    summaryFields: ["sku", "name", "fulfillable_quantity", "onhand_quantity"],
  },
  {
    path: "/orders",
    records: (state) => state.orders,
    summaryFields: ["id", "customer_identifier", "status", "total", "currency", "created_at"],
  },
  {
    path: "/returns",
    records: (state) => state.returns,
    summaryFields: [
      "id",
      "customer_identifier",
      "order_customer_identifier",
      "status",
      "created_at",
    ],
  },
  {
    path: "/inbound_shipments",
    records: (state) => state.inboundShipments,
    summaryFields: ["id", "customer_identifier", "status", "expected_arrival"],
  },
  {
    path: "/outbound_shipments",
    records: (state) => state.outboundShipments,
    summaryFields: [
      "id",
      "customer_identifier",
      "order_customer_identifier",
      "status",
      "carrier",
      "tracking_number",
    ],
  },
];

const pagingKeys = new Set(["limit", "offset", "list_type"]);

/**
 * `GET` on each list endpoint: `limit` 1..100, `offset` >= 0, `list_type`
 * detail|summary, and any other query key filters by equality on a record
 * field (`status=shipped`, `customer.email=...`). Answers the list envelope.
 */
export function listRoutes(service: OrdersService): Route[] {
  return listResources.map((resource) => ({
    method: "GET" as const,
    pattern: resource.path,
    handle: ({ query }) => {
      const limit = readInteger(query, "limit", service.defaultLimit, 1, 100);
      const offset = readInteger(query, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
      const listType = query.get("list_type") ?? "detail";
      if (listType !== "detail" && listType !== "summary") {
        throw new SimulatorHttpError(
          400,
          "invalid_list_type",
          `list_type must be "detail" or "summary"; got "${listType}".`,
        );
      }
      const records = resource.records(service.state);
      const filters = [...query.entries()].filter(([key]) => !pagingKeys.has(key));
      const filterable = filterableFields(records);
      const unknown = filters.filter(([key]) => !filterable.has(key)).map(([key]) => key);
      if (unknown.length > 0) {
        throw new SimulatorHttpError(
          400,
          "invalid_filter",
          `Unknown filter ${unknown.map((key) => `"${key}"`).join(", ")} on ${resource.path}; filter by one of: ${[...filterable].sort().join(", ")}.`,
        );
      }
      const matching = records.filter((record) =>
        filters.every(([key, value]) => fieldText(record, key) === value),
      );
      const page = matching.slice(offset, offset + limit);
      const data =
        listType === "summary"
          ? page.map((record) => pickFields(record, resource.summaryFields))
          : structuredClone(page);
      return { body: { limit, offset, list_type: listType, data } };
    },
  }));
}

function readInteger(
  query: URLSearchParams,
  name: string,
  fallback: number,
  minimum: number,
  maximum: number,
): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
    const range =
      maximum === Number.MAX_SAFE_INTEGER ? `${minimum} or more` : `from ${minimum} to ${maximum}`;
    throw new SimulatorHttpError(
      400,
      `invalid_${name}`,
      `${name} must be an integer ${range}; got "${raw}".`,
    );
  }
  return value;
}

/** Top-level scalar fields, and `parent.child` for scalar fields of nested objects. */
function filterableFields(records: readonly StoredRecord[]): Set<string> {
  const fields = new Set<string>();
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      if (isJsonObject(value)) {
        for (const [innerKey, inner] of Object.entries(value)) {
          if (isScalar(inner)) fields.add(`${key}.${innerKey}`);
        }
      } else if (isScalar(value)) {
        fields.add(key);
      }
    }
  }
  return fields;
}

function fieldText(record: StoredRecord, key: string): string | undefined {
  let value: unknown = record;
  for (const part of key.split(".")) {
    if (!isJsonObject(value) || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return isScalar(value) ? String(value) : undefined;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function pickFields(record: StoredRecord, fields: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of fields) {
    if (record[field] !== undefined) result[field] = structuredClone(record[field]);
  }
  return result;
}
