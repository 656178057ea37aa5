import { editDistance } from "./edit-distance.js";
import type { SpecOperation } from "./openapi-spec.js";

/** The operation a reference most likely meant, and how the two differ. */
export interface OperationSuggestion {
  operation: SpecOperation;
  /** E.g. `the method must be upper case; the spec's path has no trailing slash`. */
  reason: string;
}

/**
 * The closest operation to `method path`: first one that differs only in
 * method letter case, path letter case, a leading or trailing slash,
 * parameter names or singular/plural segments (each difference named);
 * else the nearest by edit distance, if near enough.
 */
export function suggestOperation(
  method: string,
  path: string,
  operations: readonly SpecOperation[],
): OperationSuggestion | undefined {
  let best: { operation: SpecOperation; differences: string[]; rank: number } | undefined;
  for (const operation of operations) {
    const pathDifferences = comparePaths(path, operation.path);
    if (!pathDifferences) continue;
    const differences = [...compareMethods(method, operation.method), ...pathDifferences];
    const rank = differences.length + (method.toUpperCase() === operation.method ? 0 : 10);
    if (!best || rank < best.rank) best = { operation, differences, rank };
  }
  if (best && best.differences.length > 0) {
    return { operation: best.operation, reason: best.differences.join("; ") };
  }
  const wanted = `${method} ${path}`.toLowerCase();
  let nearest: { operation: SpecOperation; distance: number } | undefined;
  for (const operation of operations) {
    const distance = editDistance(wanted, operation.key.toLowerCase());
    if (!nearest || distance < nearest.distance) nearest = { operation, distance };
  }
  if (nearest && nearest.distance <= Math.max(3, Math.floor(wanted.length * 0.3))) {
    return { operation: nearest.operation, reason: "the closest operation in the spec" };
  }
  return undefined;
}

function compareMethods(written: string, actual: string): string[] {
  if (written === actual) return [];
  if (written.toUpperCase() === actual) return ["the method must be upper case"];
  return [`the spec has ${actual} on this path, not ${written.toUpperCase()}`];
}

/** The differences that keep two paths apart, or undefined when they differ in substance. */
function comparePaths(written: string, actual: string): string[] | undefined {
  const differences: string[] = [];
  if (!written.startsWith("/") && actual.startsWith("/")) differences.push("paths start with /");
  const writtenTrailing = written.length > 1 && written.endsWith("/");
  const actualTrailing = actual.length > 1 && actual.endsWith("/");
  if (writtenTrailing && !actualTrailing) differences.push("the spec's path has no trailing slash");
  if (!writtenTrailing && actualTrailing) differences.push("the spec's path ends with a slash");
  const writtenSegments = segments(written);
  const actualSegments = segments(actual);
  if (writtenSegments.length !== actualSegments.length) return undefined;
  const kinds = new Set<string>();
  for (let index = 0; index < writtenSegments.length; index++) {
    const left = writtenSegments[index]!;
    const right = actualSegments[index]!;
    if (left === right) continue;
    if (isParameter(left) && isParameter(right)) {
      kinds.add(`path parameter names must match the spec's (${right})`);
    } else if (left.toLowerCase() === right.toLowerCase()) {
      kinds.add("paths are case-sensitive");
    } else if (singular(left.toLowerCase()) === singular(right.toLowerCase())) {
      kinds.add(`singular and plural differ (${right})`);
    } else {
      return undefined;
    }
  }
  return [...differences, ...kinds];
}

function segments(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

function isParameter(segment: string): boolean {
  return /^\{[^}]+\}$/.test(segment);
}

function singular(word: string): string {
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ses|xes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}
