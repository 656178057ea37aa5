import type { SeededRandom } from "../http/seeded-random.js";
import { addHours, toRfc3339 } from "../http/timestamps.js";
import type { StoredRecord } from "./orders-state.js";

const suppliers = [
  "Cascade Outfitters Supply",
  "Blue Ridge Textiles",
  "Summit Metalworks",
  "Pacific Trail Imports",
];

/** 30 inbound shipments (ASN-7000 .. ASN-7029), oldest first, the latest still on their way. */
export function seedInboundShipments(
  random: SeededRandom,
  skus: readonly StoredRecord[],
  referenceTime: Date,
): StoredRecord[] {
  const stocked = skus.filter((sku) => sku.status === "active" && sku.category !== "gift_cards");
  return Array.from({ length: 30 }, (_, index) => {
    const created = addHours(referenceTime, -24 * (150 - index * 5) - random.integer(0, 20));
    const expected = addHours(created, 24 * random.integer(6, 14));
    const arrivedBefore = expected.getTime() < referenceTime.getTime();
    const status = arrivedBefore
      ? random.weighted([
          ["completed", 12],
          ["receiving", 1],
          ["canceled", 1],
        ])
      : random.weighted([
          ["awaiting_arrival", 4],
          ["arrived", 1],
        ]);
    const lines = Array.from({ length: random.integer(1, 5) }, () => {
      const expectedQuantity = random.integer(2, 20) * 12;
      return {
        sku: String(random.pick(stocked).customer_identifier),
        expected_quantity: expectedQuantity,
        received_quantity:
          status === "completed"
            ? expectedQuantity -
              random.weighted([
                [0, 8],
                [random.integer(1, 6), 1],
              ])
            : status === "receiving"
              ? Math.floor(expectedQuantity / 2)
              : 0,
      };
    });
    return {
      id: random.uuid(),
      customer_identifier: `ASN-${7000 + index}`,
      purchase_order: `PO-${24100 + index * 7}`,
      supplier: random.pick(suppliers),
      warehouse: random.pick(["WH-EAST-01", "WH-WEST-01"]),
      status,
      expected_arrival: toRfc3339(expected),
      lines,
      created_at: toRfc3339(created),
      updated_at: toRfc3339(arrivedBefore ? addHours(expected, random.integer(2, 48)) : created),
    };
  });
}
