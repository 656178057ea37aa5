import { describeBody } from "./describe-body.js";
import type { ListPage } from "./order-types.js";

/**
 * Reads a list answer: the envelope `{limit, offset, list_type, data}` (extra
 * fields kept, non-numeric paging fields dropped) or a bare array. Returns a
 * problem string when the body is neither.
 */
export function parseListPage<T>(body: unknown): ListPage<T> | string {
  if (Array.isArray(body)) return { data: body as T[] };
  if (
    typeof body !== "object" ||
    body === null ||
    !Array.isArray((body as { data?: unknown }).data)
  ) {
    return `expected a list envelope {limit, offset, list_type, data: [...]} or an array, got ${describeBody(body)}`;
  }
  const page = { ...(body as ListPage<T>) };
  if (!isCount(page.limit)) delete page.limit;
  if (!isCount(page.offset)) delete page.offset;
  if (typeof page.list_type !== "string") delete page.list_type;
  return page;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
