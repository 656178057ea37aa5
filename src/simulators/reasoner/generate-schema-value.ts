import { loadOnFirstUse } from "../../internal/load-on-first-use.js";
import { patternExample } from "./pattern-example.js";

type Schema = Record<string, unknown> | boolean;
type SchemaObject = Record<string, unknown>;

/**
 * Where a schema leaves a choice (a branch of `anyOf`/`oneOf`, a type of
 * several, how to build a string), the option to take at each such point in
 * the order met; missing entries take the first option.
 */
export type SchemaChoices = readonly number[];

/** Nesting depth after which only required properties and the fewest items are generated. */
const fullDepth = 6;
/** Nesting depth at which generation gives up on a recursive schema. */
const maximumDepth = 32;

/** Examples of the formats JSON Schema and ajv-formats name. */
const formatExamples: Readonly<Record<string, string>> = {
  "date-time": "2026-01-15T09:30:00Z",
  "iso-date-time": "2026-01-15T09:30:00Z",
  date: "2026-01-15",
  time: "09:30:00Z",
  "iso-time": "09:30:00Z",
  duration: "P1DT2H",
  email: "person@example.com",
  "idn-email": "person@example.com",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.10",
  ipv6: "2001:db8::10",
  uri: "https://example.com/simulated",
  "uri-reference": "https://example.com/simulated",
  iri: "https://example.com/simulated",
  "iri-reference": "https://example.com/simulated",
  url: "https://example.com/simulated",
  "uri-template": "https://example.com/{id}",
  uuid: "3f0c6a52-8f3e-4c1a-9b7d-2e5f4a6b8c9d",
  "json-pointer": "/simulated",
  "json-pointer-uri-fragment": "#/simulated",
  "relative-json-pointer": "0/simulated",
  regex: "^simulated$",
  byte: "c2ltdWxhdGVk",
  password: "simulated",
  binary: "simulated",
};

/** The text of a string without a format or pattern. */
const plainText = "simulated";

/**
 * A JSON value built from a JSON Schema (2020-12, 2019-09 or draft-07
 * keywords): an object has its required properties (and, near the top,
 * its other properties), an array `minItems` items (at least one when
 * allowed), a string its format's example, its pattern's example or
 * `"simulated"` fitted to its length bounds, an integer 1 and a number 1.5
 * moved into their bounds and onto `multipleOf`; `enum` and `const` give
 * their values, `allOf` is merged, `anyOf`/`oneOf` take a branch, `$ref`
 * follows `#/...` pointers (`$defs`, `definitions`). Choice points take
 * the options in `choices`, and the number of options each had is pushed
 * onto `options` (also when it throws), so a caller whose validator
 * refuses the value can try the next combination.
 *
 * @throws Error when the schema allows nothing (`false`, types that
 * exclude each other) or a `$ref` leads outside it or never ends.
 */
export function generateSchemaValue(
  root: Schema,
  choices: SchemaChoices = [],
  options: number[] = [],
): unknown {
  const choose = (count: number): number => {
    const position = options.length;
    options.push(count);
    const chosen = choices[position] ?? 0;
    return chosen < count ? chosen : 0;
  };
  const context: Context = { root, choose };
  return generate(context, root, 0, 0);
}

interface Context {
  root: Schema;
  choose(count: number): number;
}

function generate(context: Context, schema: Schema, depth: number, variant: number): unknown {
  if (schema === true) return plainText;
  if (schema === false) throw new Error("a part of the schema is false: no value is allowed");
  const resolved = flatten(context, schema, depth);
  if ("const" in resolved) return resolved.const;
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) {
    return resolved.enum[variant % resolved.enum.length];
  }
  const key = Array.isArray(resolved.anyOf) ? "anyOf" : "oneOf";
  const branches = resolved[key];
  if (Array.isArray(branches) && branches.length > 0) {
    const viable = (branches as Schema[]).filter((branch) => branch !== false);
    const branch = viable[context.choose(viable.length)] ?? false;
    const { [key]: _taken, ...rest } = resolved;
    return generate(context, merge(rest, flatten(context, branch, depth)), depth + 1, variant);
  }
  switch (pickType(context, resolved)) {
    case "null":
      return null;
    case "boolean":
      return variant % 2 === 0;
    case "integer":
      return generateNumber(resolved, true, variant);
    case "number":
      return generateNumber(resolved, false, variant);
    case "array":
      return generateArray(context, resolved, depth);
    case "object":
      return generateObject(context, resolved, depth);
    default:
      return generateString(context, resolved, variant);
  }
}

/** The schema with its `$ref` followed and its `allOf` merged in. */
function flatten(context: Context, schema: Schema, depth: number): SchemaObject {
  if (depth > maximumDepth) {
    throw new Error("the schema nests deeper than 32 levels (a $ref that never ends?)");
  }
  if (typeof schema === "boolean") return schema ? {} : { not: {} };
  let result: SchemaObject = schema;
  if (typeof result.$ref === "string") {
    const { $ref, ...rest } = result;
    result = merge(rest, flatten(context, resolveReference(context.root, $ref), depth + 1));
  }
  if (Array.isArray(result.allOf)) {
    const { allOf, ...rest } = result;
    result = (allOf as Schema[]).reduce<SchemaObject>(
      (merged, part) => merge(merged, flatten(context, part, depth + 1)),
      rest,
    );
  }
  return result;
}

function resolveReference(root: Schema, reference: string): Schema {
  if (reference === "#") return root;
  if (!reference.startsWith("#/")) {
    throw new Error(
      `the $ref ${JSON.stringify(reference)} is not a "#/..." pointer into the schema`,
    );
  }
  let target: unknown = root;
  for (const raw of reference.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    target =
      typeof target === "object" && target !== null
        ? (target as Record<string, unknown>)[key]
        : undefined;
  }
  if (typeof target !== "boolean" && (typeof target !== "object" || target === null)) {
    throw new Error(`the $ref ${JSON.stringify(reference)} points at nothing in the schema`);
  }
  return target as Schema;
}

/** Both schemas' constraints in one (as `allOf` asks): bounds tightened, lists joined. */
function merge(left: SchemaObject, right: SchemaObject): SchemaObject {
  const result: SchemaObject = { ...left };
  for (const [key, value] of Object.entries(right)) {
    const mine = result[key];
    if (mine === undefined) {
      result[key] = value;
      continue;
    }
    switch (key) {
      case "properties": {
        const properties = { ...(mine as SchemaObject) };
        for (const [name, schema] of Object.entries(value as SchemaObject)) {
          properties[name] =
            name in properties ? { allOf: [properties[name], schema] } : (schema as Schema);
        }
        result.properties = properties;
        break;
      }
      case "required":
        result.required = [...new Set([...(mine as string[]), ...(value as string[])])];
        break;
      case "type": {
        const ours = Array.isArray(mine) ? mine : [mine];
        const theirs = Array.isArray(value) ? value : [value];
        const both = ours.filter(
          (type) => theirs.includes(type) || (type === "integer" && theirs.includes("number")),
        );
        if (ours.includes("number") && theirs.includes("integer")) both.push("integer");
        result.type = both;
        break;
      }
      case "enum":
        result.enum = (mine as unknown[]).filter((option) =>
          (value as unknown[]).some((other) => JSON.stringify(other) === JSON.stringify(option)),
        );
        break;
      case "minimum":
      case "exclusiveMinimum":
      case "minLength":
      case "minItems":
      case "minProperties":
      case "minContains":
        result[key] = typeof value === "number" ? Math.max(mine as number, value) : value;
        break;
      case "maximum":
      case "exclusiveMaximum":
      case "maxLength":
      case "maxItems":
      case "maxProperties":
      case "maxContains":
        result[key] = typeof value === "number" ? Math.min(mine as number, value) : value;
        break;
      case "items":
      case "additionalProperties":
      case "propertyNames":
      case "contains":
        result[key] =
          typeof mine === "object" && typeof value === "object" && !Array.isArray(value)
            ? { allOf: [mine, value] }
            : value === false || mine === false
              ? false
              : value;
        break;
      case "anyOf":
      case "oneOf":
        // Two choices at once: the second is kept apart, as a branch of the first's result.
        result.allOf = [...((result.allOf as Schema[] | undefined) ?? []), { [key]: value }];
        break;
      default:
        result[key] = value;
    }
  }
  return result;
}

const typeOrder = ["object", "array", "string", "integer", "number", "boolean", "null"];

function pickType(context: Context, schema: SchemaObject): string {
  const declared = schema.type;
  const types = Array.isArray(declared)
    ? [...(declared as string[])].sort((a, b) => typeOrder.indexOf(a) - typeOrder.indexOf(b))
    : typeof declared === "string"
      ? [declared]
      : [inferType(schema)];
  if (types.length === 0) throw new Error("the schema's types exclude each other");
  return types[context.choose(types.length)]!;
}

function inferType(schema: SchemaObject): string {
  const has = (...keys: string[]) => keys.some((key) => key in schema);
  if (has("properties", "required", "additionalProperties", "patternProperties", "minProperties"))
    return "object";
  if (has("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems"))
    return "array";
  if (has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"))
    return "number";
  return "string";
}

function generateNumber(schema: SchemaObject, integer: boolean, variant: number): number {
  const { low, high } = numberBounds(schema, integer);
  const given = typeof schema.multipleOf === "number" && schema.multipleOf > 0;
  const step = given ? (schema.multipleOf as number) : integer ? 1 : undefined;
  let value = (integer ? 1 : 1.5) + variant;
  if (low !== undefined) value = Math.max(value, low);
  if (high !== undefined) value = Math.min(value, high);
  if (step !== undefined) {
    let multiple = Math.ceil(value / step);
    if (high !== undefined && multiple * step > high) multiple = Math.floor(high / step);
    // A fractional step on an integer: the first of its multiples that is whole.
    for (let tries = 0; integer && !Number.isInteger(multiple * step) && tries < 1000; tries++) {
      multiple++;
    }
    value = multiple * step;
  }
  // Floating point leaves 0.30000000000000004 where 0.3 is meant.
  return Number(value.toPrecision(12));
}

/** The least and greatest value allowed, exclusive bounds moved inside. */
function numberBounds(
  schema: SchemaObject,
  integer: boolean,
): { low: number | undefined; high: number | undefined } {
  const nudge = (bound: number, up: boolean) =>
    integer
      ? up
        ? Math.floor(bound) + 1
        : Math.ceil(bound) - 1
      : bound + (up ? 1 : -1) * Math.max(Math.abs(bound) * 1e-6, 1e-6);
  let low = typeof schema.minimum === "number" ? schema.minimum : undefined;
  let high = typeof schema.maximum === "number" ? schema.maximum : undefined;
  if (integer && low !== undefined) low = Math.ceil(low);
  if (integer && high !== undefined) high = Math.floor(high);
  const exclusiveLow =
    typeof schema.exclusiveMinimum === "number"
      ? schema.exclusiveMinimum
      : schema.exclusiveMinimum === true
        ? low
        : undefined;
  const exclusiveHigh =
    typeof schema.exclusiveMaximum === "number"
      ? schema.exclusiveMaximum
      : schema.exclusiveMaximum === true
        ? high
        : undefined;
  if (exclusiveLow !== undefined) {
    const inside = nudge(exclusiveLow, true);
    low = low === undefined || schema.exclusiveMinimum === true ? inside : Math.max(low, inside);
  }
  if (exclusiveHigh !== undefined) {
    const inside = nudge(exclusiveHigh, false);
    high = high === undefined || schema.exclusiveMaximum === true ? inside : Math.min(high, inside);
  }
  return { low, high };
}

function generateString(context: Context, schema: SchemaObject, variant: number): string {
  const format = typeof schema.format === "string" ? formatExamples[schema.format] : undefined;
  const pattern = typeof schema.pattern === "string" ? schema.pattern : undefined;
  const sources = [format, pattern === undefined ? undefined : patternExample(pattern)].filter(
    (source) => source !== undefined,
  );
  const chosen = context.choose(sources.length + 1);
  if (chosen < sources.length) return sources[chosen]!;
  const text = variant === 0 ? plainText : `${plainText}-${variant + 1}`;
  // Length bounds count code points, as JSON Schema does.
  const minimum = typeof schema.minLength === "number" ? schema.minLength : 0;
  const maximum = typeof schema.maxLength === "number" ? schema.maxLength : text.length;
  return text
    .padEnd(minimum, plainText)
    .slice(0, Math.max(minimum, Math.min(maximum, text.length)));
}

function generateArray(context: Context, schema: SchemaObject, depth: number): unknown[] {
  const prefix = (
    Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : []
  ) as Schema[];
  const rest = (
    Array.isArray(schema.items) ? (schema.additionalItems ?? true) : (schema.items ?? true)
  ) as Schema;
  const minimum = typeof schema.minItems === "number" ? schema.minItems : 0;
  const maximum = typeof schema.maxItems === "number" ? schema.maxItems : Number.POSITIVE_INFINITY;
  const wanted = depth < fullDepth ? Math.max(minimum, 1) : minimum;
  let count = Math.min(Math.max(wanted, minimum), maximum);
  if (rest === false) count = Math.min(count, prefix.length);
  const contains = schema.contains as Schema | undefined;
  const containsCount =
    contains === undefined ? 0 : typeof schema.minContains === "number" ? schema.minContains : 1;
  const items: unknown[] = [];
  for (let index = 0; index < count; index++) {
    const own = index < prefix.length ? prefix[index]! : rest;
    const wantsContained = index >= count - containsCount && contains !== undefined;
    const itemSchema: Schema = wantsContained ? { allOf: [own, contains] } : own;
    items.push(generate(context, itemSchema, depth + 1, schema.uniqueItems === true ? index : 0));
  }
  if (contains !== undefined && count < containsCount) {
    for (let index = count; index < containsCount; index++) {
      items.push(generate(context, { allOf: [rest, contains] }, depth + 1, index));
    }
  }
  return items;
}

function generateObject(
  context: Context,
  schema: SchemaObject,
  depth: number,
): Record<string, unknown> {
  const properties = (
    typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {}
  ) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const dependent = (schema.dependentRequired ?? {}) as Record<string, string[]>;
  const maximum =
    typeof schema.maxProperties === "number" ? schema.maxProperties : Number.POSITIVE_INFINITY;
  const minimum = typeof schema.minProperties === "number" ? schema.minProperties : 0;
  const names = [...required];
  if (depth < fullDepth) {
    for (const name of Object.keys(properties)) {
      if (!required.has(name) && properties[name] !== false && names.length < maximum) {
        names.push(name);
      }
    }
  }
  for (const name of [...names]) {
    for (const needed of dependent[name] ?? []) if (!names.includes(needed)) names.push(needed);
  }
  // Null-prototype: property names come from the schema.
  const result: Record<string, unknown> = Object.create(null);
  for (const name of names) {
    result[name] = generate(context, propertySchema(schema, properties, name), depth + 1, 0);
  }
  const patterns = Object.keys((schema.patternProperties ?? {}) as SchemaObject);
  const extra = schema.additionalProperties ?? true;
  for (let index = 0; Object.keys(result).length < minimum; index++) {
    let name: string;
    if (patterns.length > 0) {
      name =
        patternExample(patterns[index % patterns.length]!) +
        (index >= patterns.length ? index : "");
    } else if (extra !== false) {
      name =
        schema.propertyNames === undefined
          ? `property_${index + 1}`
          : String(generate(context, schema.propertyNames as Schema, depth + 1, index + 1));
    } else {
      throw new Error("minProperties asks for more properties than the schema allows");
    }
    if (name in result) name = `${name}_${index + 1}`;
    result[name] = generate(context, propertySchema(schema, properties, name), depth + 1, index);
  }
  return { ...result };
}

/** The schema a property's value must meet: its own, a matching pattern's, or the additional one. */
function propertySchema(
  schema: SchemaObject,
  properties: Record<string, Schema>,
  name: string,
): Schema {
  const own = Object.hasOwn(properties, name) ? properties[name] : undefined;
  const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>)
    .filter(([pattern]) => matches(pattern, name))
    .map(([, matching]) => matching);
  const parts = [...(own === undefined ? [] : [own]), ...patterns];
  if (parts.length === 0) return (schema.additionalProperties ?? true) as Schema;
  return parts.length === 1 ? parts[0]! : { allOf: parts };
}

// A schema's pattern comes from the request: RE2 matches it in linear time.
const re2 = loadOnFirstUse<typeof import("re2js")>("re2js");

function matches(pattern: string, name: string): boolean {
  try {
    const { RE2JS } = re2();
    return RE2JS.compile(RE2JS.translateRegExp(pattern)).matcher(name).find();
  } catch {
    return false;
  }
}
