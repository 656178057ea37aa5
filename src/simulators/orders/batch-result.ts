import { describeJsonValue, isJsonObject } from "../http/json-values.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";

/** One entry of the batch result envelope. */
export interface BatchItemResult {
  customer_identifier: string;
  status: "success" | "failure";
  error_message?: string;
}

/** The batch result envelope (docs/contract.md §2). */
export interface BatchResultEnvelope {
  records_submitted: number;
  records_processed: number;
  records_failed: number;
  records_succeeded: number;
  results: BatchItemResult[];
}

/** Thrown while processing one item: that item fails, the others go on. */
export class ItemFailure extends Error {
  override readonly name = "ItemFailure";
}

/**
 * The items of a batch request body: a non-empty JSON array of at most
 * `maxBatchSize` entries. Too many gives 413 so nothing is half-done.
 */
export function readBatch(body: unknown, maxBatchSize: number, itemShape: string): unknown[] {
  if (!Array.isArray(body) || body.length === 0) {
    throw new SimulatorHttpError(
      400,
      "invalid_body",
      `Body must be a non-empty JSON array of ${itemShape}; got ${describeJsonValue(body)}.`,
    );
  }
  if (body.length > maxBatchSize) {
    throw new SimulatorHttpError(
      413,
      "batch_too_large",
      `At most ${maxBatchSize} records per request; got ${body.length}. Nothing was processed: split the records into batches of ${maxBatchSize} or fewer.`,
    );
  }
  return body;
}

/** The `customer_identifier` of an item, or an ItemFailure saying what is wrong. */
export function readCustomerIdentifier(item: unknown, index: number): string {
  if (!isJsonObject(item)) {
    throw new ItemFailure(`record [${index}] must be an object, got ${describeJsonValue(item)}`);
  }
  const identifier = item.customer_identifier;
  if (typeof identifier !== "string" || identifier.trim() === "") {
    throw new ItemFailure(
      `record [${index}] needs customer_identifier, a non-empty string; got ${describeJsonValue(identifier)}`,
    );
  }
  return identifier;
}

/**
 * Processes every item on its own: `process` returns the item's identifier on
 * success or throws ItemFailure; the envelope reports each outcome in order.
 */
export function runBatch(
  items: readonly unknown[],
  process: (item: unknown, index: number) => string,
): BatchResultEnvelope {
  const results = items.map((item, index): BatchItemResult => {
    try {
      return { customer_identifier: process(item, index), status: "success" };
    } catch (error) {
      if (!(error instanceof ItemFailure)) throw error;
      return {
        customer_identifier: identifierForReport(item),
        status: "failure",
        error_message: error.message,
      };
    }
  });
  const failed = results.filter((result) => result.status === "failure").length;
  return {
    records_submitted: items.length,
    records_processed: items.length,
    records_failed: failed,
    records_succeeded: items.length - failed,
    results,
  };
}

function identifierForReport(item: unknown): string {
  if (typeof item === "string") return item;
  if (isJsonObject(item) && typeof item.customer_identifier === "string") {
    return item.customer_identifier;
  }
  return "";
}
