import { ConfigurationError } from "../errors/configuration-error.js";
import { loadOnFirstUse } from "../internal/load-on-first-use.js";
import { loadZod } from "../internal/load-zod.js";
import { compileJsonSchema } from "./compile-json-schema.js";
import { formatIssues } from "./format-issues.js";
import type { JsonSchema } from "./json-schema.js";
import type { ArgumentsCheck } from "./tool.js";
import { isZod3Schema, isZod4Schema } from "./zod-schema.js";

/** The zod 3 converter, loaded only when a zod 3 schema comes. */
const loadZodToJsonSchema =
  loadOnFirstUse<typeof import("zod-to-json-schema")>("zod-to-json-schema");

/** A tool's parameters turned into what the model sees and what checks its arguments. */
export interface ResolvedToolParameters {
  /** Frozen JSON Schema of `type: "object"`, without `$schema`. */
  jsonSchema: JsonSchema;
  checkArguments(args: unknown): ArgumentsCheck<unknown>;
}

/**
 * Converts a zod 4 schema, a zod 3 schema or a plain JSON Schema object into
 * the JSON Schema sent to the model and an argument checker. Runs once per
 * tool, at definition. Throws a ConfigurationError naming the tool when the
 * schema cannot be converted or does not describe an object.
 */
export function resolveToolParameters(
  parameters: unknown,
  toolName: string,
): ResolvedToolParameters {
  return resolveObjectSchema(parameters, {
    subject: `Tool "${toolName}": parameters`,
    owner: `Tool "${toolName}"`,
  });
}

/**
 * The one conversion of a schema users give (tool parameters, structured
 * output): zod 4, zod 3 or JSON Schema describing an object, to a frozen
 * JSON Schema and a checker that parses (zod transforms apply). `subject`
 * starts each problem of the schema's form (`Tool "x": parameters`,
 * `output`), `owner` each problem the JSON Schema validator finds.
 */
export function resolveObjectSchema(
  parameters: unknown,
  names: { subject: string; owner: string },
): ResolvedToolParameters {
  const { subject, owner } = names;
  if (isZod4Schema(parameters)) {
    const { safeParse, toJSONSchema } = loadZod();
    const jsonSchema = finishSchema(
      convert(() => toJSONSchema(parameters, { io: "input" }), subject),
      subject,
    );
    return {
      jsonSchema,
      checkArguments(args) {
        const result = safeParse(parameters, args);
        return result.success
          ? { success: true, data: result.data }
          : { success: false, issues: formatIssues(result.error.issues) };
      },
    };
  }
  if (isZod3Schema(parameters)) {
    const jsonSchema = finishSchema(
      convert(
        () => loadZodToJsonSchema().zodToJsonSchema(parameters as never, { $refStrategy: "none" }),
        subject,
      ),
      subject,
    );
    return {
      jsonSchema,
      checkArguments(args) {
        const result = parameters.safeParse(args);
        return result.success
          ? { success: true, data: result.data }
          : { success: false, issues: formatIssues(result.error.issues) };
      },
    };
  }
  if (typeof parameters === "object" && parameters !== null && !Array.isArray(parameters)) {
    const copy = convert(() => structuredClone(parameters), subject);
    const jsonSchema = finishSchema(copy, subject);
    // Checked in the dialect the schema declares, though the model is sent it without `$schema`.
    const check = compileJsonSchema(deepFreeze(copy), { subject: owner });
    return {
      jsonSchema,
      checkArguments(args) {
        const issues = check(args);
        return issues.length === 0 ? { success: true, data: args } : { success: false, issues };
      },
    };
  }
  throw new ConfigurationError(
    `${subject} must be a zod schema or a JSON Schema object; got ${describe(parameters)}.`,
  );
}

function convert(produce: () => unknown, subject: string): Record<string, unknown> {
  try {
    return produce() as Record<string, unknown>;
  } catch (error) {
    throw new ConfigurationError(
      `${subject} cannot be expressed as JSON Schema (${(error as Error).message}); use types JSON can carry, e.g. an ISO string instead of a Date.`,
      { cause: error },
    );
  }
}

function finishSchema(schema: Record<string, unknown>, subject: string): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  if (rest.type !== "object") {
    throw new ConfigurationError(
      `${subject} must describe an object (JSON Schema type "object"), got ${
        rest.type === undefined ? "no type" : `type ${JSON.stringify(rest.type)}`
      }; wrap the fields in z.object({ ... }) or { type: "object", properties: { ... } }.`,
    );
  }
  return deepFreeze(rest);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
