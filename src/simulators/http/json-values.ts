/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How a JSON value reads in an error message: `an array`, `a string ("x")`, ... */
export function describeJsonValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string (${JSON.stringify(value.slice(0, 60))})`;
  if (typeof value === "object") return "an object";
  return `a ${typeof value} (${String(value)})`;
}

/** A deep copy, so callers of state accessors cannot change the simulator by accident. */
export function copyJson<T>(value: T): T {
  return structuredClone(value);
}
