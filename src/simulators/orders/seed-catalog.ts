import type { SeededRandom } from "../http/seeded-random.js";
import { addHours, toRfc3339 } from "../http/timestamps.js";
import type { StoredRecord } from "./orders-state.js";

/** Name, category, price (USD) and shipping weight (g) of each seeded SKU. */
const catalog: readonly (readonly [string, string, number, number])[] = [
  ["Trail Water Bottle 750 ml", "drinkware", 24, 310],
  ["Insulated Tumbler 20 oz", "drinkware", 29.5, 420],
  ["Enamel Camp Mug", "drinkware", 14, 280],
  ["Collapsible Cup", "drinkware", 9.95, 60],
  ["Merino Crew Socks", "apparel", 18, 90],
  ["Hiking Socks 3-Pack", "apparel", 32, 240],
  ["Packable Rain Jacket", "apparel", 129, 380],
  ["Fleece Quarter Zip", "apparel", 79, 450],
  ["Sun Hoodie UPF 50", "apparel", 58, 260],
  ["Trail Running Cap", "apparel", 28, 80],
  ["Ribbed Wool Beanie", "apparel", 26, 110],
  ["Daypack 22 L", "bags", 89, 720],
  ["Hydration Pack 12 L", "bags", 99, 640],
  ["Duffel Bag 60 L", "bags", 119, 1150],
  ["Hip Pack", "bags", 39, 210],
  ["Dry Bag 10 L", "bags", 22, 140],
  ["Two-Person Tent", "camping", 249, 2100],
  ["Ultralight Sleeping Pad", "camping", 139, 480],
  ["Down Sleeping Bag 0 C", "camping", 279, 990],
  ["Camp Pillow", "camping", 34, 120],
  ["Backpacking Stove", "camping", 54, 95],
  ["Fuel Canister 230 g", "camping", 7.5, 370],
  ["Titanium Spork", "camping", 11, 18],
  ["Two-Pot Cook Set", "camping", 64, 520],
  ["Headlamp 400 lm", "accessories", 42, 85],
  ["Rechargeable Lantern", "accessories", 48, 290],
  ["Trekking Poles (pair)", "accessories", 119, 510],
  ["Trail First Aid Kit", "accessories", 36, 330],
  ["Multi-Tool 14-in-1", "accessories", 69, 240],
  ["Baseplate Compass", "accessories", 24, 50],
  ["Squeeze Water Filter", "accessories", 44, 90],
  ["Microfiber Towel L", "accessories", 27, 200],
  ["Sunscreen Stick SPF 50", "accessories", 12, 40],
  ["Bug Head Net", "accessories", 9, 30],
  ["Low Gaiters", "apparel", 35, 150],
  ["Glove Liners", "apparel", 22, 50],
  ["Compact Camp Chair", "camping", 89, 1020],
  ["Single Hammock", "camping", 69, 540],
  ["Bear Canister", "camping", 84, 1150],
  ["Gift Card 50 USD", "gift_cards", 50, 5],
];

const discontinued = new Set(["Baseplate Compass", "Bug Head Net"]);

/** Warehouses stock is spread over. */
export const warehouses = ["WH-EAST-01", "WH-WEST-01"] as const;

/** The seeded catalog: SKU-1001 .. SKU-1040. */
export function seedSkus(random: SeededRandom, referenceTime: Date): StoredRecord[] {
  return catalog.map(([name, category, price, weight], index) => {
    const created = addHours(referenceTime, -24 * (400 - index * 3));
    return {
      id: random.uuid(),
      customer_identifier: `SKU-${1001 + index}`,
      name,
      category,
      barcode: `0${String(random.integer(10_000_000_000, 99_999_999_999))}`,
      unit_price: price,
      currency: "USD",
      weight_grams: weight,
      status: discontinued.has(name) ? "discontinued" : "active",
      created_at: toRfc3339(created),
      updated_at: toRfc3339(addHours(created, random.integer(24, 24 * 200))),
    };
  });
}

/** One inventory record per SKU, with stock split over the warehouses. */
export function seedInventory(
  random: SeededRandom,
  skus: readonly StoredRecord[],
  referenceTime: Date,
): StoredRecord[] {
  return skus.map((sku) => {
    const retired = sku.status === "discontinued" || sku.category === "gift_cards";
    const east = retired ? 0 : random.integer(0, 320);
    const west = retired ? 0 : random.integer(0, 180);
    const onhand = east + west;
    const committed = Math.min(onhand, random.integer(0, 40));
    return {
      id: random.uuid(),
      sku: sku.customer_identifier,
      sku_id: sku.id,
      name: sku.name,
      onhand_quantity: onhand,
      committed_quantity: committed,
      fulfillable_quantity: onhand - committed,
      awaiting_quantity: retired
        ? 0
        : random.weighted([
            [0, 3],
            [random.integer(24, 240), 2],
          ]),
      backordered_quantity: onhand === 0 && !retired ? random.integer(1, 12) : 0,
      locations: [
        { warehouse: warehouses[0], quantity: east },
        { warehouse: warehouses[1], quantity: west },
      ],
      updated_at: toRfc3339(addHours(referenceTime, -random.integer(1, 96))),
    };
  });
}
