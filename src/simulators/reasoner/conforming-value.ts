import { ConfigurationError } from "../../errors/configuration-error.js";
import { compileJsonSchema, type JsonSchemaCheck } from "../../tools/compile-json-schema.js";
import { generateSchemaValue } from "./generate-schema-value.js";

/** A value the schema accepts, or why none could be given. */
export type ConformingValue = { ok: true; value: unknown } | { ok: false; problem: string };

/** Compiled schemas by their JSON text; a client sends the same few schemas again and again. */
const compiled = new Map<string, JsonSchemaCheck>();
const maximumCompiled = 256;
/** Combinations of choices tried before giving up on a schema. */
const maximumAttempts = 64;

/**
 * A value valid for `schema`, generated from it ({@link generateSchemaValue})
 * and checked with the tools' validator ({@link compileJsonSchema}: Ajv,
 * strict, failing closed on what it cannot check), as a model constrained
 * by the schema would answer. When the first value does not pass (a `oneOf` whose first branch also
 * matches another, a pattern the example misses) the next combination of
 * choices is tried. The problem names what is wrong: a schema the
 * validator cannot check, or one no generated value meets.
 */
export function conformingValue(schema: unknown): ConformingValue {
  const check = compile(schema);
  if (typeof check === "string") return { ok: false, problem: check };
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
      const problems = check(value);
      if (problems.length === 0) return { ok: true, value };
      lastProblem = problems.slice(0, 3).join("; ");
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

function compile(schema: unknown): JsonSchemaCheck | string {
  // A boolean schema is the object schema that means the same.
  const object = typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema;
  if (typeof object !== "object" || object === null || Array.isArray(object)) {
    return "the schema must be a JSON Schema object";
  }
  const key = JSON.stringify(object);
  const known = compiled.get(key);
  if (known) return known;
  let check: JsonSchemaCheck;
  try {
    check = compileJsonSchema(object as Record<string, unknown>, { subject: "the schema" });
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return error.cause instanceof Error
      ? `it is not a valid JSON Schema: ${error.cause.message}`
      : error.message;
  }
  if (compiled.size >= maximumCompiled) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, check);
  return check;
}
