import type { $ZodType, output as ZodOutput } from "zod/v4/core";
import type { JsonSchema } from "../tools/json-schema.js";
import { resolveObjectSchema } from "../tools/tool-parameters.js";
import type { Zod3Schema } from "../tools/zod-schema.js";
import type { ModelResponseFormat } from "./model.js";

/**
 * What a structured answer must match: a zod 4 or zod 3 schema, or a JSON
 * Schema object, describing an object. Give it as `output` on the agent or
 * on one run.
 */
export type OutputSchema = $ZodType | Zod3Schema | JsonSchema;

/**
 * The type of `result.output` for an `output` schema: the schema's parsed
 * type (after zod transforms), `Record<string, unknown>` for JSON Schema, and
 * `string` (the answer's text) without a schema. A structured run that did
 * not complete has no output: `undefined`.
 */
export type OutputOf<Schema> = [Schema] extends [undefined]
  ? string
  : Schema extends $ZodType
    ? ZodOutput<Schema> | undefined
    : Schema extends Zod3Schema
      ? Schema["_output"] | undefined
      : Record<string, unknown> | undefined;

/** An `output` schema converted once: what the request asks for, and how an answer is read. */
export interface ResolvedOutput {
  responseFormat: ModelResponseFormat;
  /** Parses and validates an answer's text: the value, or one `path: message` line per problem. */
  read(
    text: string | null,
  ): { success: true; value: unknown } | { success: false; issues: string[] };
}

/**
 * Converts an `output` schema with the same conversion tool parameters use
 * (zod 4, zod 3 or JSON Schema). `strict` is asked for only when the schema
 * allows it (every object closed, every property required), since providers
 * reject a strict schema that is not. Throws a ConfigurationError otherwise.
 */
export function resolveOutputSchema(schema: unknown): ResolvedOutput {
  const resolved = resolveObjectSchema(schema, {
    subject: "output",
    owner: "The output schema",
  });
  const title = resolved.jsonSchema.title;
  const name = typeof title === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(title) ? title : "output";
  const description = resolved.jsonSchema.description;
  return {
    responseFormat: {
      type: "json_schema",
      json_schema: {
        name,
        ...(typeof description === "string" ? { description } : {}),
        schema: resolved.jsonSchema,
        strict: allowsStrict(resolved.jsonSchema),
      },
    },
    read(text) {
      let decoded: unknown;
      try {
        decoded = JSON.parse(unfence(text ?? ""));
      } catch (error) {
        return {
          success: false,
          issues: [`(root): the answer is not JSON (${(error as Error).message})`],
        };
      }
      const check = resolved.checkArguments(decoded);
      return check.success
        ? { success: true, value: check.data }
        : { success: false, issues: check.issues };
    },
  };
}

/** The message that sends an invalid answer back, with the validator's words. */
export function outputCorrectionMessage(issues: readonly string[]): string {
  return [correctionOpening, ...issues.map((issue) => `- ${issue}`), correctionClosing].join("\n");
}

/**
 * True for a user message the run wrote itself ({@link outputCorrectionMessage}),
 * not one a person sent.
 */
export function isOutputCorrectionMessage(text: string): boolean {
  return text.startsWith(`${correctionOpening}\n`) && text.endsWith(`\n${correctionClosing}`);
}

const correctionOpening = "Your answer does not match the required JSON schema:";
const correctionClosing = "Answer again with only the corrected JSON object, nothing else.";

/** Models often wrap JSON in a Markdown code fence; the JSON inside is the answer. */
function unfence(text: string): string {
  const fenced = /^\s*```(?:json)?[^\S\n]*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  return fenced ? fenced[1]! : text;
}

function allowsStrict(node: unknown): boolean {
  if (typeof node !== "object" || node === null) return true;
  if (Array.isArray(node)) return node.every(allowsStrict);
  const schema = node as Record<string, unknown>;
  if (schema.type === "object" || typeof schema.properties === "object") {
    const properties = Object.keys((schema.properties as object | undefined) ?? {});
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (schema.additionalProperties !== false) return false;
    if (!properties.every((key) => required.includes(key))) return false;
  }
  return Object.entries(schema).every(([key, value]) =>
    key === "enum" || key === "const" || key === "default" || key === "examples"
      ? true
      : allowsStrict(value),
  );
}
