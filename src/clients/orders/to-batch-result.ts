import type { BatchItemResult, BatchResult, DeleteCallbackResult } from "./order-types.js";
import type { ItemOutcome } from "./write-in-batches.js";

/**
 * Builds the batch result envelope from merged outcomes, recomputing every
 * total over all batches (the service's per-batch totals are not summed,
 * since items refused locally or lost with a failed request are counted too).
 */
export function toBatchResult(outcomes: readonly ItemOutcome[]): BatchResult {
  const results = outcomes.map(
    (outcome): BatchItemResult => ({
      ...outcome.entry,
      customer_identifier: outcome.key,
      ...statusOf(outcome),
    }),
  );
  const succeeded = results.filter((result) => result.status === "success").length;
  return {
    records_submitted: outcomes.length,
    records_processed: outcomes.filter((outcome) => outcome.entry !== undefined).length,
    records_failed: outcomes.length - succeeded,
    records_succeeded: succeeded,
    results,
  };
}

/** One `{id, status, error_message?}` per input id, service fields kept. */
export function toDeleteCallbackResults(outcomes: readonly ItemOutcome[]): DeleteCallbackResult[] {
  return outcomes.map((outcome) => ({ ...outcome.entry, id: outcome.key, ...statusOf(outcome) }));
}

function statusOf(
  outcome: ItemOutcome,
): { status: "success" } | { status: "failure"; error_message: string } {
  if (outcome.succeeded) return { status: "success" };
  return { status: "failure", error_message: outcome.errorMessage ?? "failed" };
}
