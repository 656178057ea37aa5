/**
 * Small checks shared by the chat request validation. Each appends a complete
 * problem sentence (`<field> <value> <what is wrong>`) to `problems` and
 * never throws, so one pass reports every bad field at once.
 */

/** True for a non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short, safe rendering of a value for a problem sentence. */
export function describeValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return String(value);
  }
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? "an array" : "an object";
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `label value is outside min..max`, or `is not a number` when it is none. */
export function checkNumberInRange(
  problems: string[],
  label: string,
  value: unknown,
  minimum: number,
  maximum: number,
): void {
  if (value === undefined) return;
  if (typeof value !== "number") {
    problems.push(`${label} ${describeValue(value)} is not a number in ${minimum}..${maximum}`);
  } else if (!(value >= minimum && value <= maximum)) {
    problems.push(`${label} ${describeValue(value)} is outside ${minimum}..${maximum}`);
  }
}

/** `label value is not a positive integer`. */
export function checkPositiveInteger(problems: string[], label: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    problems.push(`${label} ${describeValue(value)} is not a positive integer`);
  }
}

/** `label value is not a non-empty string`. */
export function checkNonEmptyString(problems: string[], label: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "string" || value.trim() === "") {
    problems.push(`${label} ${describeValue(value)} is not a non-empty string`);
  }
}

/** `label value is not a boolean`. */
export function checkBoolean(problems: string[], label: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "boolean") {
    problems.push(`${label} ${describeValue(value)} is not a boolean`);
  }
}

/** `label value is not an array of strings`. */
export function checkStringArray(problems: string[], label: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    problems.push(`${label} ${describeValue(value)} is not an array of strings`);
  }
}

/** `label value is not an object`. */
export function checkObject(problems: string[], label: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (!isPlainObject(value)) {
    problems.push(`${label} ${describeValue(value)} is not an object`);
    return false;
  }
  return true;
}
