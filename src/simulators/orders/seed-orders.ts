import type { SeededRandom } from "../http/seeded-random.js";
import { addHours, toRfc3339 } from "../http/timestamps.js";
import { roundMoney } from "./money.js";
import type { OrderRecord, OrderStatus, StoredRecord } from "./orders-state.js";

const firstNames = [
  "Ava",
  "Liam",
  "Maya",
  "Noah",
  "Zoe",
  "Ethan",
  "Priya",
  "Lucas",
  "Chloe",
  "Mateo",
  "Hannah",
  "Omar",
  "Grace",
  "Kenji",
  "Sofia",
  "Daniel",
  "Amara",
  "Felix",
  "Leah",
  "Diego",
  "Nora",
  "Samuel",
  "Ines",
  "Tobias",
  "Yuki",
  "Caleb",
  "Elena",
  "Jonah",
  "Freya",
  "Marcus",
];
const lastNames = [
  "Nguyen",
  "Patel",
  "Garcia",
  "Smith",
  "Kim",
  "Okafor",
  "Johansson",
  "Rossi",
  "Cohen",
  "Silva",
  "Muller",
  "Brown",
  "Tanaka",
  "Lopez",
  "Walker",
  "Haddad",
  "Novak",
  "Reyes",
  "Fischer",
  "Clarke",
];
const cities: readonly (readonly [string, string, string])[] = [
  ["Portland", "OR", "97205"],
  ["Denver", "CO", "80202"],
  ["Austin", "TX", "78701"],
  ["Seattle", "WA", "98101"],
  ["Boise", "ID", "83702"],
  ["Burlington", "VT", "05401"],
  ["Asheville", "NC", "28801"],
  ["Madison", "WI", "53703"],
  ["Flagstaff", "AZ", "86001"],
  ["Missoula", "MT", "59802"],
  ["Salt Lake City", "UT", "84101"],
  ["Bend", "OR", "97701"],
  ["Duluth", "MN", "55802"],
  ["Chattanooga", "TN", "37402"],
  ["Santa Fe", "NM", "87501"],
];
const streets = ["Pine St", "Oak Ave", "Main St", "River Rd", "Summit Dr", "Cedar Ln", "Lake St"];
const carriers: readonly (readonly [string, string, string])[] = [
  ["UPS", "Ground", "1Z"],
  ["USPS", "Priority Mail", "9400"],
  ["FedEx", "Home Delivery", "7"],
];
const returnReasons = ["damaged", "wrong_size", "not_as_described", "changed_mind", "defective"];

/** Identifier of the order the custom-tool example discounts; it shipped late. */
export const lateOrderIdentifier = "ORD-1042";

/** 240 orders ORD-1000 .. ORD-1239, oldest first, spread over the 60 days before `referenceTime`. */
export function seedOrders(
  random: SeededRandom,
  skus: readonly StoredRecord[],
  referenceTime: Date,
): OrderRecord[] {
  const sellable = skus.filter((sku) => sku.status === "active");
  const orders: OrderRecord[] = [];
  for (let index = 0; index < 240; index += 1) {
    const identifier = `ORD-${1000 + index}`;
    const ageHours = (240 - index) * 6 - random.integer(0, 5);
    const created = addHours(referenceTime, -ageHours);
    const status = identifier === lateOrderIdentifier ? "delivered" : pickStatus(random, ageHours);
    const first = random.pick(firstNames);
    const last = random.pick(lastNames);
    const [city, region, postalCode] = random.pick(cities);
    const lineCount = random.weighted([
      [1, 5],
      [2, 3],
      [3, 2],
      [4, 1],
    ]);
    const lines = Array.from({ length: lineCount }, () => {
      const sku = random.pick(sellable);
      return {
        sku: String(sku.customer_identifier),
        name: String(sku.name),
        quantity: random.weighted([
          [1, 6],
          [2, 3],
          [3, 1],
        ]),
        unit_price: Number(sku.unit_price),
      };
    });
    const subtotal = roundMoney(
      lines.reduce((sum, line) => sum + line.quantity * line.unit_price, 0),
    );
    const shippingCost = subtotal >= 75 ? 0 : 6.95;
    const order: OrderRecord = {
      id: random.uuid(),
      customer_identifier: identifier,
      status,
      channel: random.weighted([
        ["web", 7],
        ["marketplace", 2],
        ["wholesale", 1],
      ]),
      customer: {
        name: `${first} ${last}`,
        email: `${first}.${last}${random.integer(1, 99)}@example.com`.toLowerCase(),
      },
      shipping_address: {
        line1: `${random.integer(10, 9899)} ${random.pick(streets)}`,
        city,
        region,
        postal_code: postalCode,
        country: "US",
      },
      lines,
      subtotal,
      shipping_cost: shippingCost,
      total: roundMoney(subtotal + shippingCost),
      currency: "USD",
      created_at: toRfc3339(created),
      updated_at: toRfc3339(created),
    };
    if (status !== "created" && status !== "canceled") {
      const shipDelay = identifier === lateOrderIdentifier ? 127 : random.integer(4, 40);
      const shipped = addHours(created, shipDelay);
      order.shipped_at = toRfc3339(shipped);
      order.updated_at = toRfc3339(shipped);
      if (status === "delivered") {
        const delivered = toRfc3339(addHours(shipped, random.integer(30, 110)));
        order.delivered_at = delivered;
        order.updated_at = delivered;
      }
    }
    if (status === "canceled") {
      const canceled = toRfc3339(addHours(created, random.integer(1, 20)));
      order.canceled_at = canceled;
      order.cancel_reason = random.pick(["customer_request", "payment_declined", "out_of_stock"]);
      order.updated_at = canceled;
    }
    orders.push(order);
  }
  return orders;
}

function pickStatus(random: SeededRandom, ageHours: number): OrderStatus {
  if (ageHours < 48) {
    return random.weighted<OrderStatus>([
      ["created", 8],
      ["shipped", 1],
      ["canceled", 1],
    ]);
  }
  if (ageHours < 168) {
    return random.weighted<OrderStatus>([
      ["created", 3],
      ["shipped", 5],
      ["delivered", 1],
      ["canceled", 1],
    ]);
  }
  if (ageHours < 336) {
    return random.weighted<OrderStatus>([
      ["shipped", 3],
      ["delivered", 6],
      ["canceled", 1],
    ]);
  }
  return random.weighted<OrderStatus>([
    ["shipped", 0.2],
    ["delivered", 9],
    ["canceled", 1],
  ]);
}

/**
 * About 60 outbound shipments: one for every shipped order, then for the most
 * recently delivered ones, plus the late order's.
 */
export function seedOutboundShipments(
  random: SeededRandom,
  orders: readonly OrderRecord[],
): StoredRecord[] {
  const shipped = orders.filter((order) => order.status === "shipped");
  const delivered = orders.filter((order) => order.status === "delivered").reverse();
  const chosen = new Set<OrderRecord>(shipped);
  const late = orders.find((order) => order.customer_identifier === lateOrderIdentifier);
  if (late) chosen.add(late);
  for (const order of delivered) {
    if (chosen.size >= 60) break;
    chosen.add(order);
  }
  const ordered = orders.filter((order) => chosen.has(order));
  return ordered.map((order, index) => {
    const [carrier, service, prefix] = random.pick(carriers);
    const shippedAt = new Date(String(order.shipped_at));
    return {
      id: random.uuid(),
      customer_identifier: `SHP-${30001 + index}`,
      order_customer_identifier: order.customer_identifier,
      status: order.status === "delivered" ? "delivered" : "in_transit",
      carrier,
      service,
      tracking_number: `${prefix}${random.characters(prefix === "1Z" ? 16 : 14, "0123456789")}`,
      warehouse: random.pick(["WH-EAST-01", "WH-WEST-01"]),
      package_weight_grams: random.integer(150, 4200),
      shipped_at: order.shipped_at,
      estimated_delivery: toRfc3339(addHours(shippedAt, 96)),
      ...(order.delivered_at ? { delivered_at: order.delivered_at } : {}),
      lines: structuredClone(order.lines),
    };
  });
}

/** 25 returns RMA-5000 .. RMA-5024 against delivered orders. */
export function seedReturns(
  random: SeededRandom,
  orders: readonly OrderRecord[],
  referenceTime: Date,
): StoredRecord[] {
  const delivered = orders.filter(
    (order) => order.status === "delivered" && order.customer_identifier !== lateOrderIdentifier,
  );
  const step = Math.max(1, Math.floor(delivered.length / 25));
  const returns: StoredRecord[] = [];
  for (let index = 0; index < 25; index += 1) {
    const order = delivered[Math.min(delivered.length - 1, index * step)];
    if (!order) break;
    const created = addHours(new Date(String(order.delivered_at)), random.integer(24, 24 * 12));
    const age = referenceTime.getTime() - created.getTime();
    const status =
      age < 5 * 86_400_000
        ? random.pick(["requested", "in_transit"])
        : random.weighted([
            ["received", 2],
            ["processed", 6],
            ["rejected", 1],
          ]);
    const orderLines = order.lines as { sku: string; quantity: number; unit_price: number }[];
    const line = random.pick(orderLines);
    returns.push({
      id: random.uuid(),
      customer_identifier: `RMA-${5000 + index}`,
      order_customer_identifier: order.customer_identifier,
      status,
      reason: random.pick(returnReasons),
      lines: [{ sku: line.sku, quantity: 1 }],
      refund_amount: status === "rejected" ? 0 : line.unit_price,
      currency: "USD",
      tracking_number: `9400${random.characters(18, "0123456789")}`,
      created_at: toRfc3339(created),
      updated_at: toRfc3339(addHours(created, random.integer(1, 72))),
    });
  }
  return returns;
}
