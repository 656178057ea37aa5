import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every depth and no whitespace, so equal
 * values always give equal text. Values go through their `toJSON` first (a
 * Date becomes its ISO string), `undefined` properties are dropped, as
 * JSON.stringify does. A value JSON cannot represent faithfully (a Map, a Set,
 * a BigInt, a function, a class instance without `toJSON`) throws a
 * TypeError rather than collapse to `{}`: two different arguments must never
 * share a fingerprint.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, "(root)"));
}

function sortKeys(value: unknown, path: string): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "object") {
    throw new TypeError(`${path}: a ${typeof value} has no JSON form`);
  }
  const withJson = value as { toJSON?: unknown };
  if (typeof withJson.toJSON === "function") {
    return sortKeys((withJson.toJSON as () => unknown).call(value), path);
  }
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      item === undefined ? null : sortKeys(item, `${path}[${index}]`),
    );
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    const kind = (value as { constructor?: { name?: string } }).constructor?.name ?? "object";
    throw new TypeError(
      `${path}: a ${kind} has no faithful JSON form; use plain objects and arrays`,
    );
  }
  // Built with defineProperty so a "__proto__" key stays a key.
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const inner = (value as Record<string, unknown>)[key];
    if (inner === undefined || typeof inner === "function" || typeof inner === "symbol") continue;
    Object.defineProperty(sorted, key, {
      value: sortKeys(inner, `${path}.${key}`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return sorted;
}

/**
 * `sha256:<hex>` of the tool name, the canonical JSON of its arguments and,
 * when the tool has one, the canonical JSON of where it acts (service,
 * account, environment): what an approval binds to. Any change of arguments
 * or of target changes it.
 */
export function actionFingerprint(toolName: string, args: unknown, target?: object): string {
  const hash = createHash("sha256")
    .update(toolName)
    .update("\n")
    .update(canonicalJson(args ?? {}));
  if (target !== undefined) hash.update("\n").update(canonicalJson(target));
  const digest = hash.digest("hex");
  return `sha256:${digest}`;
}

/** `sha256:<hex>` of a text (UTF-8), e.g. an approval question as it was sent. */
export function textDigest(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}
