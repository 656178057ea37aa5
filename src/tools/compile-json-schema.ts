import { createRequire } from "node:module";
import type { Ajv as AjvCore, Options as AjvOptions, ErrorObject } from "ajv";
import type { RegExpEngine, RegExpLike } from "ajv/dist/types/index.js";
import type { FormatsPlugin } from "ajv-formats";
import { ConfigurationError } from "../errors/configuration-error.js";
import { formatIssuePath } from "./format-issues.js";

/** Checks a value against a compiled schema; returns one `path: message` line per problem. */
export type JsonSchemaCheck = (value: unknown) => string[];

/** Options of {@link compileJsonSchema}. */
export interface CompileJsonSchemaOptions {
  /**
   * Keywords that only annotate (say something to people or tools, check
   * nothing), such as `x-order` or `example`, accepted in addition to the
   * standard annotations (`title`, `description`, `default`, `examples`,
   * `deprecated`, `readOnly`, `writeOnly`, `$comment`). Any other keyword
   * the validator does not know is refused.
   * @default []
   */
  annotationKeywords?: readonly string[] | undefined;
  /** Names the schema in error messages, e.g. `Tool "delete_file"`. @default "The JSON Schema" */
  subject?: string | undefined;
  /**
   * The schema was not written by this program's author (an MCP server's
   * `inputSchema`): its `pattern` and `patternProperties` are compiled with
   * a linear-time engine (RE2, as `re2js`), so no value can make a check
   * backtrack for seconds or forever. A pattern that engine cannot compile
   * (lookaround, backreferences) makes the schema refused, naming the
   * pattern, never checked without it.
   * @default false (patterns are JavaScript regular expressions)
   */
  untrusted?: boolean | undefined;
}

const require = createRequire(import.meta.url);

/** The JSON Schema dialects the validator checks, by their `$schema` address (without `#`). */
const dialects = {
  "https://json-schema.org/draft/2020-12/schema": "ajv/dist/2020",
  "https://json-schema.org/draft/2019-09/schema": "ajv/dist/2019",
  "http://json-schema.org/draft-07/schema": "ajv",
} as const;

type DialectModule = (typeof dialects)[keyof typeof dialects];

const validators = new Map<string, AjvCore>();

/**
 * Compiles a JSON Schema into a checker, with Ajv in strict mode and the
 * standard formats. It fails closed: a keyword it does not know, a `format`
 * it cannot check, a `$ref` it cannot resolve inside the schema, a schema
 * that breaks its dialect's rules, or a dialect other than 2020-12 (the
 * default when `$schema` is absent), 2019-09 or draft-07 is refused here,
 * never skipped when checking. Every keyword it accepts is checked,
 * `anyOf`, `oneOf`, `allOf`, `not`, `if`, `$ref`/`$defs` and `format`
 * included.
 *
 * Ajv (loaded on the first call, not at import) turns each schema into code
 * once; checking a value is then a function call. Every problem is
 * reported, each as `path: message` in Ajv's words.
 *
 * @throws ConfigurationError saying what in the schema cannot be checked.
 *
 * @example
 * const check = compileJsonSchema({ type: "object", properties: { email: { type: "string", format: "email" } } });
 * check({ email: "nope" }); // ['email: must match format "email"']
 */
export function compileJsonSchema(
  schema: Readonly<Record<string, unknown>>,
  options: CompileJsonSchemaOptions = {},
): JsonSchemaCheck {
  const subject = options.subject ?? "The JSON Schema";
  const declared = schema.$schema;
  const address = typeof declared === "string" ? declared.replace(/#$/, "") : undefined;
  const dialect =
    declared === undefined
      ? dialects["https://json-schema.org/draft/2020-12/schema"]
      : address !== undefined && Object.hasOwn(dialects, address)
        ? dialects[address as keyof typeof dialects]
        : undefined;
  if (dialect === undefined) {
    throw new ConfigurationError(
      `${subject}: its $schema ${JSON.stringify(declared)} names a JSON Schema dialect that cannot be checked; use ${Object.keys(
        dialects,
      ).join(", ")} (or leave $schema out for 2020-12).`,
    );
  }
  const annotationKeywords = [...new Set(options.annotationKeywords ?? [])].sort();
  const validator = validatorFor(dialect, annotationKeywords, options.untrusted === true);
  let validate: ReturnType<AjvCore["compile"]>;
  try {
    validate = validator.compile(schema);
  } catch (error) {
    throw new ConfigurationError(
      `${subject}: the schema cannot be checked, so it is refused (${(error as Error).message}); remove or fix that part of the schema.`,
      { cause: error },
    );
  } finally {
    // Compiled functions stand alone; forgetting the schema lets another with the same $id compile.
    validator.removeSchema(schema);
  }
  return (value) => {
    if (validate(value)) return [];
    return (validate.errors ?? []).map(describeError);
  };
}

function validatorFor(
  dialect: DialectModule,
  annotationKeywords: readonly string[],
  untrusted: boolean,
): AjvCore {
  const key = `${dialect}\n${untrusted}\n${annotationKeywords.join("\n")}`;
  let validator = validators.get(key);
  if (validator) return validator;
  const loaded = require(dialect) as { default: new (options: AjvOptions) => AjvCore };
  const addFormats = (require("ajv-formats") as { default: FormatsPlugin }).default;
  validator = new loaded.default({
    // Unknown keywords and formats are errors, not silently ignored.
    strictSchema: true,
    strictNumbers: true,
    // These only flag schemas that are unusual, not keywords left unchecked.
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    allErrors: true,
    // Keeps each error's schema, so an unknown property's message can list the allowed ones.
    verbose: true,
    validateFormats: true,
    logger: false,
    ...(untrusted ? { code: { regExp: linearRegExpEngine() } } : {}),
  });
  addFormats(validator);
  for (const keyword of annotationKeywords) validator.addKeyword({ keyword });
  validators.set(key, validator);
  return validator;
}

/**
 * Ajv's regular expression engine for schemas from outside: RE2 (`re2js`,
 * loaded here, on the first untrusted schema), whose matching time grows
 * linearly with the text. JavaScript's syntax (`\\u0041`, `(?<name>…)`) is
 * translated first; what RE2 cannot do in linear time is refused.
 */
function linearRegExpEngine(): RegExpEngine {
  const { RE2JS } = require("re2js") as typeof import("re2js");
  const engine = (pattern: string, flags: string): RegExpLike => {
    let compiled: InstanceType<typeof RE2JS>;
    try {
      compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch (error) {
      throw new Error(
        `the pattern ${JSON.stringify(pattern)} cannot be checked in linear time (${(error as Error).message}); lookahead, lookbehind and backreferences are not supported in a schema from outside`,
        { cause: error },
      );
    }
    // Ajv shares one compiled pattern per distinct toString().
    const linear: RegExpLike & { toString(): string } = {
      test: (text) => compiled.test(text),
      toString: () => `/${pattern}/${flags}`,
    };
    return linear;
  };
  return Object.assign(engine, { code: 'require("re2js").RE2JS' });
}

function describeError(error: ErrorObject): string {
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  let message = error.message ?? `fails ${error.keyword}`;
  if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") {
    const name = params.additionalProperty ?? params.unevaluatedProperty;
    const properties = (error.parentSchema as { properties?: unknown } | undefined)?.properties;
    const allowed =
      typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
    message = `${message}: ${JSON.stringify(name)} (allowed: ${allowed.length > 0 ? allowed.join(", ") : "none"})`;
  } else if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    message = `${message}: ${params.allowedValues.map((option) => JSON.stringify(option)).join(", ")}`;
  } else if (error.keyword === "const") {
    message = `${message}: ${JSON.stringify(params.allowedValue)}`;
  }
  return `${formatIssuePath(path)}: ${message}`;
}

/** `/items/0/name` to `["items", 0, "name"]` (RFC 6901 escapes undone). */
function pointerToPath(pointer: string): PropertyKey[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
}
