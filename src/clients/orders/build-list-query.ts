import { ConfigurationError } from "../../errors/configuration-error.js";
import type { QueryValue } from "../../internal/http/http-client.js";
import type { ListParams } from "./order-types.js";

/** Largest page the service serves (docs/contract.md §2: `limit` 1 to 100). */
export const maximumPageSize = 100;

/**
 * Turns list parameters into the query string, checking paging before
 * anything is sent: `limit` an integer 1..100, `offset` an integer >= 0,
 * `listType` `detail` or `summary`, filters plain values. `list_type` is
 * accepted as an alias of `listType`.
 */
export function buildListQuery(params: ListParams = {}): Record<string, QueryValue> {
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new ConfigurationError(
      "list parameters must be an object such as { limit: 50, offset: 0 }",
    );
  }
  const { limit, offset, listType, list_type: listTypeAlias, ...filters } = params;
  const problems: string[] = [];
  // Null-prototype: filter names are the caller's (or a model's), `__proto__` included.
  const query: Record<string, QueryValue> = Object.create(null);
  if (limit !== undefined && limit !== null) {
    if (
      typeof limit !== "number" ||
      !Number.isInteger(limit) ||
      limit < 1 ||
      limit > maximumPageSize
    ) {
      problems.push(
        `limit ${describeValue(limit)} is out of range: give an integer from 1 to ${maximumPageSize}`,
      );
    } else query.limit = limit;
  }
  if (offset !== undefined && offset !== null) {
    if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0) {
      problems.push(`offset ${describeValue(offset)} is invalid: give an integer of at least 0`);
    } else query.offset = offset;
  }
  const type = listType ?? listTypeAlias;
  if (type !== undefined && type !== null) {
    if (type !== "detail" && type !== "summary") {
      problems.push(`listType ${describeValue(type)} is invalid: use "detail" or "summary"`);
    } else query.list_type = type;
  }
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null) continue;
    if (isPlainQueryValue(value)) query[key] = value;
    else if (Array.isArray(value) && value.every(isPlainQueryValue)) query[key] = value;
    else {
      problems.push(
        `filter ${key} is ${Array.isArray(value) ? "an array holding objects" : typeof value === "object" ? "an object" : `a ${typeof value}`}: filters must be strings, finite numbers, booleans or arrays of them`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return query;
}

function isPlainQueryValue(value: unknown): value is string | number | boolean {
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return `"${value.slice(0, 40)}"`;
  if (typeof value === "number") return String(value);
  return `(${typeof value})`;
}
