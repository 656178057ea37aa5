import type { $ZodType } from "zod/v4/core";

/**
 * The structural shape of a zod 3 schema, as far as tools use it. Written out
 * so zod 3 need not be installed; `_output` carries the parsed type.
 */
export interface Zod3Schema<Output = unknown> {
  readonly _def: unknown;
  readonly _output: Output;
  safeParse(
    data: unknown,
  ):
    | { success: true; data: Output }
    | { success: false; error: { issues: Array<{ path: (string | number)[]; message: string }> } };
}

/** True for a zod 4 schema (classic or mini): it carries `_zod`. */
export function isZod4Schema(value: unknown): value is $ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/**
 * True for a zod 3 schema: it has `_def` but no `_zod`. zod 4 classic schemas
 * also expose `_def`, so the order of the two checks matters.
 */
export function isZod3Schema(value: unknown): value is Zod3Schema {
  return (
    typeof value === "object" &&
    value !== null &&
    "_def" in value &&
    !("_zod" in value) &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}
