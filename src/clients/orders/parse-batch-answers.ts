import { describeBody } from "./describe-body.js";
import type { BatchAnswerEntry } from "./write-in-batches.js";

/**
 * Reads the per-item entries of a batch result envelope (`{results: [...]}`,
 * or a bare array of entries), keyed by `customer_identifier`. Returns a
 * problem string when the body holds no entry list.
 */
export function parseBatchResultEntries(body: unknown): BatchAnswerEntry[] | string {
  const list = Array.isArray(body) ? body : readArray(body, "results");
  if (!list) {
    return `the answer held no per-item results (expected {results: [...]}, got ${describeBody(body)})`;
  }
  return readEntries(list, "customer_identifier");
}

/**
 * Reads the answer of `DELETE /callbacks` in any of the forms services use:
 * `{deleted: [...]}` (docs/contract.md §2), a bare array, or `{results: [...]}`, keyed by `id`.
 */
export function parseDeleteCallbacksEntries(body: unknown): BatchAnswerEntry[] | string {
  const list = Array.isArray(body)
    ? body
    : (readArray(body, "deleted") ?? readArray(body, "results"));
  if (!list) {
    return `the answer held no per-id results (expected {deleted: [...]}, got ${describeBody(body)})`;
  }
  return readEntries(list, "id");
}

function readArray(body: unknown, field: string): unknown[] | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const value = (body as Record<string, unknown>)[field];
  return Array.isArray(value) ? value : undefined;
}

function readEntries(list: readonly unknown[], keyField: string): BatchAnswerEntry[] {
  const entries: BatchAnswerEntry[] = [];
  for (const item of list) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) continue;
    const entry = item as Record<string, unknown>;
    const key = entry[keyField];
    const status = typeof entry.status === "string" ? entry.status.trim().toLowerCase() : "";
    const succeeded = status === "success";
    const message = entry.error_message;
    entries.push({
      key: typeof key === "string" || typeof key === "number" ? String(key) : undefined,
      succeeded,
      errorMessage:
        typeof message === "string" && message !== ""
          ? message
          : succeeded
            ? undefined
            : `the service reported status ${typeof entry.status === "string" ? `"${entry.status}"` : "none"}`,
      entry,
    });
  }
  return entries;
}
