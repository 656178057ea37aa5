import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every depth and no whitespace, so equal
 * values always give equal text. `undefined` properties are dropped, as
 * JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner !== undefined) sorted[key] = sortKeys(inner);
  }
  return sorted;
}

/**
 * `sha256:<hex>` of the tool name and the canonical JSON of its arguments:
 * what an approval binds to. Any change of arguments changes it.
 */
export function actionFingerprint(toolName: string, args: unknown): string {
  const digest = createHash("sha256")
    .update(toolName)
    .update("\n")
    .update(canonicalJson(args ?? {}))
    .digest("hex");
  return `sha256:${digest}`;
}
