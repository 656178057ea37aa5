import { ConfigurationError } from "../errors/configuration-error.js";
import { canonicalJson } from "../internal/canonical-json.js";
import { formatIssuePath } from "./format-issues.js";
import type { JsonSchema } from "./json-schema.js";

/** Checks a value against the schema; returns one `path: message` line per problem. */
export type JsonSchemaCheck = (value: unknown) => string[];

/**
 * Builds a checker for the JSON Schema keywords tool arguments commonly use:
 * `type`, `required`, `properties`, `additionalProperties: false`, `enum`,
 * `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
 * `minLength`, `maxLength`, `pattern`, `items`, `minItems`, `maxItems`.
 * Other keywords (`anyOf`, `$ref`, `format`, ...) are not checked; a tool
 * that relies on them should check its arguments itself, or use zod.
 *
 * Patterns are compiled here, once; an invalid one is a ConfigurationError.
 */
export function createJsonSchemaCheck(schema: JsonSchema): JsonSchemaCheck {
  const patterns = new WeakMap<object, RegExp>();
  compilePatterns(schema, patterns, []);
  return (value) => {
    const issues: string[] = [];
    checkNode(schema, value, [], patterns, issues);
    return issues;
  };
}

function compilePatterns(node: unknown, patterns: WeakMap<object, RegExp>, path: string[]): void {
  if (!isObject(node)) return;
  const pattern = node.pattern;
  if (typeof pattern === "string") {
    try {
      patterns.set(node, new RegExp(pattern, "u"));
    } catch (error) {
      throw new ConfigurationError(
        `The JSON Schema pattern ${JSON.stringify(pattern)} at ${path.join(".") || "(root)"} is not a valid regular expression: ${(error as Error).message}.`,
      );
    }
  }
  if (isObject(node.properties)) {
    for (const [key, inner] of Object.entries(node.properties)) {
      compilePatterns(inner, patterns, [...path, "properties", key]);
    }
  }
  compilePatterns(node.items, patterns, [...path, "items"]);
}

function checkNode(
  node: unknown,
  value: unknown,
  path: PropertyKey[],
  patterns: WeakMap<object, RegExp>,
  issues: string[],
): void {
  if (!isObject(node)) return;
  const report = (message: string) => issues.push(`${formatIssuePath(path)}: ${message}`);

  const types =
    typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? node.type : [];
  if (types.length > 0 && !types.some((type) => matchesType(type, value))) {
    report(`expected ${types.join(" or ")}, received ${describeType(value)}`);
    return;
  }
  if (Array.isArray(node.enum) && !node.enum.some((option) => jsonEqual(option, value))) {
    report(`expected one of ${node.enum.map((option) => JSON.stringify(option)).join(" | ")}`);
  }
  if ("const" in node && !jsonEqual(node.const, value)) {
    report(`expected ${JSON.stringify(node.const)}`);
  }

  if (typeof value === "number") checkNumber(node, value, report);
  if (typeof value === "string") {
    const length = [...value].length;
    if (typeof node.minLength === "number" && length < node.minLength) {
      report(`must have at least ${node.minLength} character(s)`);
    }
    if (typeof node.maxLength === "number" && length > node.maxLength) {
      report(`must have at most ${node.maxLength} character(s)`);
    }
    const pattern = patterns.get(node);
    if (pattern && !pattern.test(value)) report(`must match the pattern ${String(node.pattern)}`);
  }
  if (Array.isArray(value)) {
    if (typeof node.minItems === "number" && value.length < node.minItems) {
      report(`must have at least ${node.minItems} item(s)`);
    }
    if (typeof node.maxItems === "number" && value.length > node.maxItems) {
      report(`must have at most ${node.maxItems} item(s)`);
    }
    if (isObject(node.items)) {
      value.forEach((item, index) => {
        checkNode(node.items, item, [...path, index], patterns, issues);
      });
    }
  }
  if (isObject(value) && !Array.isArray(value)) checkObject(node, value, path, patterns, issues);
}

function checkNumber(
  node: Record<string, unknown>,
  value: number,
  report: (message: string) => void,
) {
  if (typeof node.minimum === "number" && value < node.minimum)
    report(`must be >= ${node.minimum}`);
  if (typeof node.maximum === "number" && value > node.maximum)
    report(`must be <= ${node.maximum}`);
  if (typeof node.exclusiveMinimum === "number" && value <= node.exclusiveMinimum) {
    report(`must be > ${node.exclusiveMinimum}`);
  }
  if (typeof node.exclusiveMaximum === "number" && value >= node.exclusiveMaximum) {
    report(`must be < ${node.exclusiveMaximum}`);
  }
}

function checkObject(
  node: Record<string, unknown>,
  value: Record<string, unknown>,
  path: PropertyKey[],
  patterns: WeakMap<object, RegExp>,
  issues: string[],
): void {
  const properties = isObject(node.properties) ? node.properties : {};
  if (Array.isArray(node.required)) {
    for (const key of node.required) {
      if (typeof key === "string" && value[key] === undefined) {
        issues.push(`${formatIssuePath([...path, key])}: required, but missing`);
      }
    }
  }
  for (const [key, inner] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) {
      checkNode(properties[key], inner, [...path, key], patterns, issues);
    } else if (node.additionalProperties === false) {
      const allowed = Object.keys(properties);
      issues.push(
        `${formatIssuePath([...path, key])}: unknown property; allowed: ${allowed.length > 0 ? allowed.join(", ") : "none"}`,
      );
    }
  }
}

function matchesType(type: unknown, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value) && !Array.isArray(value);
    default:
      // An unknown type name cannot be checked; accept rather than blame the model.
      return true;
  }
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && !Number.isInteger(value)) return "number (not an integer)";
  if (typeof value === "number") return "integer";
  return typeof value;
}

function jsonEqual(left: unknown, right: unknown): boolean {
  return left === right || canonicalJson(left) === canonicalJson(right);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
