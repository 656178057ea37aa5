import { describeJsonValue } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { toRfc3339 } from "../http/timestamps.js";
import { ItemFailure, readBatch, readCustomerIdentifier, runBatch } from "./batch-result.js";
import type { OrderRecord, OrdersService, OrdersState, StoredRecord } from "./orders-state.js";
import { linesTotal, priceRecordLines, readRecordLines } from "./record-lines.js";

/** A resource created with `POST {path}`, one record per item, keyed by customer_identifier. */
interface CreatableResource {
  path: string;
  noun: string;
  records(state: OrdersState): StoredRecord[];
  /** Builds the stored record from a request item, or throws ItemFailure. */
  build(service: OrdersService, item: Record<string, unknown>, now: string): StoredRecord;
}

const creatableResources: readonly CreatableResource[] = [
  { path: "/orders", noun: "order", records: (state) => state.orders, build: buildOrder },
  { path: "/skus", noun: "SKU", records: (state) => state.skus, build: buildSku },
  { path: "/returns", noun: "return", records: (state) => state.returns, build: buildReturn },
  {
    path: "/inbound_shipments",
    noun: "inbound shipment",
    records: (state) => state.inboundShipments,
    build: buildInboundShipment,
  },
];

/**
 * `POST /orders`, `/skus`, `/returns`, `/inbound_shipments`: each record is
 * checked on its own; a bad or duplicate one fails alone and the rest are
 * created. Fields the simulator does not know are kept as sent.
 */
export function createRoutes(service: OrdersService): Route[] {
  return creatableResources.map((resource) => ({
    method: "POST" as const,
    pattern: resource.path,
    handle: ({ body }) => {
      const items = readBatch(
        body,
        service.maxBatchSize,
        `${resource.noun} records, each with customer_identifier`,
      );
      const now = toRfc3339(service.now());
      const envelope = runBatch(items, (item, index) => {
        const identifier = readCustomerIdentifier(item, index);
        const records = resource.records(service.state);
        if (records.some((record) => record.customer_identifier === identifier)) {
          throw new ItemFailure(`${resource.noun} ${identifier} already exists`);
        }
        const record = resource.build(service, item as Record<string, unknown>, now);
        records.push(record);
        if (resource.path === "/skus")
          service.state.inventory.push(emptyInventory(service, record, now));
        return identifier;
      });
      return { body: envelope };
    },
  }));
}

function buildOrder(
  service: OrdersService,
  item: Record<string, unknown>,
  now: string,
): OrderRecord {
  if (item.status !== undefined && item.status !== "created") {
    throw new ItemFailure(
      `new orders start as "created"; omit status (got ${describeJsonValue(item.status)})`,
    );
  }
  const skus = service.state.skus;
  const lines = priceRecordLines(readRecordLines(item.lines ?? [], skus, "quantity"), skus);
  const subtotal = linesTotal(lines);
  return {
    ...item,
    id: service.newId(),
    customer_identifier: String(item.customer_identifier),
    status: "created",
    lines,
    total: typeof item.total === "number" ? item.total : subtotal,
    currency: typeof item.currency === "string" ? item.currency : "USD",
    created_at: now,
    updated_at: now,
  };
}

function buildSku(
  service: OrdersService,
  item: Record<string, unknown>,
  now: string,
): StoredRecord {
  if (typeof item.name !== "string" || item.name.trim() === "") {
    throw new ItemFailure(
      `name is required (a non-empty string), got ${describeJsonValue(item.name)}`,
    );
  }
  if (
    item.unit_price !== undefined &&
    (typeof item.unit_price !== "number" || item.unit_price < 0)
  ) {
    throw new ItemFailure(
      `unit_price must be a number of 0 or more, got ${describeJsonValue(item.unit_price)}`,
    );
  }
  return {
    ...item,
    id: service.newId(),
    status: typeof item.status === "string" ? item.status : "active",
    created_at: now,
    updated_at: now,
  };
}

function buildReturn(
  service: OrdersService,
  item: Record<string, unknown>,
  now: string,
): StoredRecord {
  const order = service.state.orders.find(
    (candidate) => candidate.customer_identifier === item.order_customer_identifier,
  );
  if (!order) {
    throw new ItemFailure(
      `order_customer_identifier ${describeJsonValue(item.order_customer_identifier)} does not name an existing order`,
    );
  }
  if (order.status !== "shipped" && order.status !== "delivered") {
    throw new ItemFailure(
      `order ${order.customer_identifier} is ${order.status}; only shipped or delivered orders can be returned`,
    );
  }
  const lines =
    item.lines === undefined ? [] : readRecordLines(item.lines, service.state.skus, "quantity");
  return {
    ...item,
    id: service.newId(),
    status: "requested",
    lines,
    created_at: now,
    updated_at: now,
  };
}

function buildInboundShipment(
  service: OrdersService,
  item: Record<string, unknown>,
  now: string,
): StoredRecord {
  const lines =
    item.lines === undefined
      ? []
      : readRecordLines(item.lines, service.state.skus, "expected_quantity");
  return {
    ...item,
    id: service.newId(),
    status: "awaiting_arrival",
    lines: lines.map((line) => ({ ...line, received_quantity: 0 })),
    created_at: now,
    updated_at: now,
  };
}

function emptyInventory(service: OrdersService, sku: StoredRecord, now: string): StoredRecord {
  return {
    id: service.newId(),
    sku: sku.customer_identifier,
    sku_id: sku.id,
    name: sku.name,
    onhand_quantity: 0,
    committed_quantity: 0,
    fulfillable_quantity: 0,
    awaiting_quantity: 0,
    backordered_quantity: 0,
    locations: [],
    updated_at: now,
  };
}
