import { createRequire } from "node:module";
import type { Ajv, Options as AjvOptions, ErrorObject, ValidateFunction } from "ajv";
import type { FormatsPlugin } from "ajv-formats";
import { generateSchemaValue } from "./generate-schema-value.js";

/** A value the schema accepts, or why none could be given. */
export type ConformingValue = { ok: true; value: unknown } | { ok: false; problem: string };

const require = createRequire(import.meta.url);

/** Ajv's entry per dialect, by `$schema` address (without `#`); 2020-12 when absent. */
const dialects: Readonly<Record<string, string>> = {
  "https://json-schema.org/draft/2020-12/schema": "ajv/dist/2020",
  "https://json-schema.org/draft/2019-09/schema": "ajv/dist/2019",
  "http://json-schema.org/draft-07/schema": "ajv",
};

const validators = new Map<string, Ajv>();
/** Compiled schemas by their JSON text; a client sends the same few schemas again and again. */
const compiled = new Map<string, ValidateFunction>();
const maximumCompiled = 256;
/** Combinations of choices tried before giving up on a schema. */
const maximumAttempts = 64;

/**
 * A value valid for `schema`, generated from it ({@link generateSchemaValue})
 * and checked with Ajv, as a model constrained by the schema would answer.
 * When the first value does not pass (a `oneOf` whose first branch also
 * matches another, a pattern the example misses) the next combination of
 * choices is tried. The problem names what is wrong: a schema Ajv cannot
 * compile, or one no generated value meets.
 */
export function conformingValue(schema: unknown): ConformingValue {
  const validate = compile(schema);
  if (typeof validate === "string") return { ok: false, problem: validate };
  let choices: number[] = [];
  let lastProblem = "";
  for (let attempt = 0; attempt < maximumAttempts; attempt++) {
    const options: number[] = [];
    try {
      const value = generateSchemaValue(
        schema as Record<string, unknown> | boolean,
        choices,
        options,
      );
      if (validate(value)) return { ok: true, value };
      lastProblem = describeErrors(validate.errors ?? []);
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    const next = nextChoices(choices, options);
    if (!next) break;
    choices = next;
  }
  return {
    ok: false,
    problem: `the simulator could not generate a value the schema accepts (${lastProblem})`,
  };
}

/** The next combination: the last choice point with an option left moves on, later ones reset. */
function nextChoices(choices: readonly number[], options: readonly number[]): number[] | undefined {
  for (let position = options.length - 1; position >= 0; position--) {
    const chosen = choices[position] ?? 0;
    if (chosen + 1 < options[position]!) return [...choices.slice(0, position), chosen + 1];
  }
  return undefined;
}

function compile(schema: unknown): ValidateFunction | string {
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null)) {
    return "the schema must be a JSON Schema object";
  }
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  const declared =
    typeof schema === "object" ? (schema as { $schema?: unknown }).$schema : undefined;
  const dialect =
    declared === undefined
      ? dialects["https://json-schema.org/draft/2020-12/schema"]
      : typeof declared === "string"
        ? dialects[declared.replace(/#$/, "")]
        : undefined;
  if (dialect === undefined) {
    return `its $schema ${JSON.stringify(declared)} is not one of ${Object.keys(dialects).join(", ")}`;
  }
  const validator = validatorFor(dialect);
  let validate: ValidateFunction;
  try {
    validate = validator.compile(schema);
  } catch (error) {
    return `it is not a valid JSON Schema: ${(error as Error).message}`;
  } finally {
    // Compiled functions stand alone; forgetting the schema lets another with the same $id compile.
    if (typeof schema === "object") validator.removeSchema(schema);
  }
  if (compiled.size >= maximumCompiled) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, validate);
  return validate;
}

function validatorFor(dialect: string): Ajv {
  let validator = validators.get(dialect);
  if (validator) return validator;
  const loaded = require(dialect) as { default: new (options: AjvOptions) => Ajv };
  const addFormats = (require("ajv-formats") as { default: FormatsPlugin }).default;
  // A server accepts what it does not enforce, as providers do with annotations.
  validator = new loaded.default({
    strict: false,
    allErrors: true,
    allowUnionTypes: true,
    validateFormats: true,
    logger: false,
  });
  addFormats(validator);
  validators.set(dialect, validator);
  return validator;
}

function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 3)
    .map((error) => `${error.instancePath || "the value"} ${error.message ?? error.keyword}`)
    .join("; ");
}
