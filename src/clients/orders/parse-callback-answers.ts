import { describeBody } from "./describe-body.js";
import type { Callback } from "./order-types.js";

/**
 * Reads a list of callbacks: a bare array (docs/contract.md §2), or `{data: [...]}` /
 * `{callbacks: [...]}`. Returns a problem string when the body is none of them.
 */
export function parseCallbacks(body: unknown): Callback[] | string {
  const list = Array.isArray(body)
    ? body
    : (readArray(body, "data") ?? readArray(body, "callbacks"));
  if (!list) return `expected an array of callbacks, got ${describeBody(body)}`;
  return list.filter(
    (item): item is Callback => typeof item === "object" && item !== null && !Array.isArray(item),
  );
}

/** Reads `{holds: string[]}` (or a bare array); a problem string otherwise. */
export function parseHolds(body: unknown): string[] | string {
  const list = Array.isArray(body) ? body : readArray(body, "holds");
  if (!list) return `expected {holds: [...]}, got ${describeBody(body)}`;
  return list.filter((item): item is string => typeof item === "string");
}

function readArray(body: unknown, field: string): unknown[] | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const value = (body as Record<string, unknown>)[field];
  return Array.isArray(value) ? value : undefined;
}
