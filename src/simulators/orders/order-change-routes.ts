import { describeJsonValue, isJsonObject } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { toRfc3339 } from "../http/timestamps.js";
import { ItemFailure, readBatch, readCustomerIdentifier, runBatch } from "./batch-result.js";
import type { OrderRecord, OrderStatus, OrdersService } from "./orders-state.js";
import { linesTotal, priceRecordLines, readRecordLines } from "./record-lines.js";

const fixedFields = new Set(["id", "created_at", "updated_at"]);
const nextStatus: Partial<Record<OrderStatus, OrderStatus>> = {
  created: "shipped",
  shipped: "delivered",
};

/**
 * `PUT /orders` (array of `{customer_identifier, ...changes}`) and
 * `DELETE /orders` (array of customer identifiers: cancel). Each item
 * succeeds or fails on its own.
 */
export function orderChangeRoutes(service: OrdersService): Route[] {
  return [
    {
      method: "PUT",
      pattern: "/orders",
      handle: ({ body }) => {
        const items = readBatch(
          body,
          service.maxBatchSize,
          "{customer_identifier, ...changes} objects",
        );
        const now = toRfc3339(service.now());
        return {
          body: runBatch(items, (item, index) => {
            const identifier = readCustomerIdentifier(item, index);
            updateOrder(
              service,
              findOrder(service, identifier),
              item as Record<string, unknown>,
              now,
            );
            return identifier;
          }),
        };
      },
    },
    {
      method: "DELETE",
      pattern: "/orders",
      handle: ({ body }) => {
        const items = readBatch(body, service.maxBatchSize, "order identifiers (strings)");
        const now = toRfc3339(service.now());
        return {
          body: runBatch(items, (item, index) => {
            const identifier = readCancelIdentifier(item, index);
            cancelOrder(findOrder(service, identifier), now);
            return identifier;
          }),
        };
      },
    },
  ];
}

function findOrder(service: OrdersService, identifier: string): OrderRecord {
  const order = service.state.orders.find(
    (candidate) => candidate.customer_identifier === identifier,
  );
  if (!order) throw new ItemFailure(`order ${identifier} does not exist`);
  return order;
}

function updateOrder(
  service: OrdersService,
  order: OrderRecord,
  item: Record<string, unknown>,
  now: string,
): void {
  if (order.status === "canceled") {
    throw new ItemFailure(
      `order ${order.customer_identifier} is canceled; canceled orders cannot be updated`,
    );
  }
  const changes = Object.entries(item).filter(([key]) => key !== "customer_identifier");
  if (changes.length === 0) {
    throw new ItemFailure(`no fields to change for order ${order.customer_identifier}`);
  }
  const fixed = changes.map(([key]) => key).filter((key) => fixedFields.has(key));
  if (fixed.length > 0) {
    throw new ItemFailure(`${fixed.join(", ")} cannot be changed`);
  }
  const update: Record<string, unknown> = Object.fromEntries(changes);
  if (update.status !== undefined && update.status !== order.status) {
    const target = update.status;
    if (target === "canceled") {
      throw new ItemFailure("cancel orders with DELETE /orders, not by setting status");
    }
    const next = Object.hasOwn(nextStatus, order.status) ? nextStatus[order.status] : undefined;
    if (next !== target) {
      throw new ItemFailure(
        `order ${order.customer_identifier} cannot go from ${order.status} to ${describeJsonValue(target)}; the next status is ${next ?? "none"}`,
      );
    }
    if (target === "shipped") update.shipped_at ??= now;
    if (target === "delivered") update.delivered_at ??= now;
  }
  if (update.lines !== undefined) {
    const skus = service.state.skus;
    const lines = priceRecordLines(readRecordLines(update.lines, skus, "quantity"), skus);
    update.lines = lines;
    update.total ??= linesTotal(lines);
  }
  Object.assign(order, update, { updated_at: now });
}

function readCancelIdentifier(item: unknown, index: number): string {
  if (typeof item === "string" && item.trim() !== "") return item;
  if (isJsonObject(item)) return readCustomerIdentifier(item, index);
  throw new ItemFailure(
    `[${index}] must be an order identifier string, got ${describeJsonValue(item)}`,
  );
}

function cancelOrder(order: OrderRecord, now: string): void {
  const identifier = order.customer_identifier;
  if (order.status === "canceled") throw new ItemFailure(`order ${identifier} is already canceled`);
  if (order.status === "delivered") {
    throw new ItemFailure(
      `order ${identifier} was delivered and cannot be canceled; create a return instead`,
    );
  }
  if (order.status === "shipped") {
    throw new ItemFailure(
      `order ${identifier} has shipped and cannot be canceled; create a return once it is delivered`,
    );
  }
  Object.assign(order, { status: "canceled", canceled_at: now, updated_at: now });
}
