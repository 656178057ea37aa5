import { describeJsonValue, isJsonObject } from "../http/json-values.js";
import { ItemFailure } from "./batch-result.js";
import { roundMoney } from "./money.js";
import type { StoredRecord } from "./orders-state.js";

/** A validated line: the SKU exists and the quantity is a positive integer. */
export interface RecordLine {
  sku: string;
  [field: string]: unknown;
}

/**
 * Checks the `lines` of a record: an array of objects whose `sku` is in the
 * catalog and whose `quantityField` is a positive integer. Other line fields
 * are kept. Throws ItemFailure naming the first problem.
 */
export function readRecordLines(
  lines: unknown,
  skus: readonly StoredRecord[],
  quantityField: string,
): RecordLine[] {
  if (!Array.isArray(lines)) {
    throw new ItemFailure(`lines must be an array, got ${describeJsonValue(lines)}`);
  }
  return lines.map((line, index) => {
    if (!isJsonObject(line)) {
      throw new ItemFailure(`lines[${index}] must be an object, got ${describeJsonValue(line)}`);
    }
    const sku = skus.find((candidate) => candidate.customer_identifier === line.sku);
    if (!sku) {
      throw new ItemFailure(
        `lines[${index}].sku ${describeJsonValue(line.sku)} is not in the catalog (GET /skus lists them)`,
      );
    }
    const quantity = line[quantityField];
    if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity < 1) {
      throw new ItemFailure(
        `lines[${index}].${quantityField} must be a positive integer, got ${describeJsonValue(quantity)}`,
      );
    }
    return { ...line, sku: String(sku.customer_identifier) };
  });
}

/** Lines with `unit_price` filled in from the catalog where the caller gave none. */
export function priceRecordLines(
  lines: readonly RecordLine[],
  skus: readonly StoredRecord[],
): (RecordLine & { unit_price: number })[] {
  return lines.map((line) => {
    if (typeof line.unit_price === "number") return { ...line, unit_price: line.unit_price };
    const sku = skus.find((candidate) => candidate.customer_identifier === line.sku);
    return { ...line, unit_price: Number(sku?.unit_price ?? 0) };
  });
}

/** Sum of quantity x unit_price, to the cent. */
export function linesTotal(lines: readonly { quantity?: unknown; unit_price: number }[]): number {
  return roundMoney(lines.reduce((sum, line) => sum + Number(line.quantity) * line.unit_price, 0));
}
