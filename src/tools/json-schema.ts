/** A JSON Schema object; tool parameters are `type: "object"` schemas. */
export type JsonSchema = { [key: string]: unknown };
