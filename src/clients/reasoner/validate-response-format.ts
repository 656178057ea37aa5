import { describeValue, isPlainObject } from "./validation-checks.js";

const namePattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Adds the problems of a `response_format`: `{type: "text"}`,
 * `{type: "json_object"}` or `{type: "json_schema", json_schema: {name,
 * schema, strict?, description?}}` with a name of 1 to 64 letters, digits,
 * `_` or `-` and a schema object.
 */
export function checkResponseFormat(problems: string[], format: unknown): void {
  if (format === undefined) return;
  const shape =
    'response_format must be {type: "text"}, {type: "json_object"} or {type: "json_schema", json_schema: {name, schema, strict?}}';
  if (!isPlainObject(format)) {
    problems.push(`${shape}; got ${describeValue(format)}`);
    return;
  }
  if (format.type === "text" || format.type === "json_object") return;
  if (format.type !== "json_schema") {
    problems.push(`${shape}; got type ${describeValue(format.type)}`);
    return;
  }
  const spec = format.json_schema;
  if (!isPlainObject(spec)) {
    problems.push(`response_format.json_schema must be an object {name, schema, strict?}`);
    return;
  }
  if (typeof spec.name !== "string" || !namePattern.test(spec.name)) {
    problems.push(
      `response_format.json_schema.name ${describeValue(spec.name)} must be 1 to 64 letters, digits, _ or -`,
    );
  }
  if (!isPlainObject(spec.schema)) {
    problems.push(
      `response_format.json_schema.schema must be a JSON Schema object; got ${describeValue(spec.schema)}`,
    );
  }
  if (spec.strict !== undefined && typeof spec.strict !== "boolean") {
    problems.push(`response_format.json_schema.strict must be true or false when given`);
  }
  if (spec.description !== undefined && typeof spec.description !== "string") {
    problems.push(`response_format.json_schema.description must be a string when given`);
  }
}
