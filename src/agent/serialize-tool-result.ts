import { isSecretKey, redactedMarker, redactText, redactValue } from "../internal/redact.js";

/**
 * The tool message text for a result: strings as they are, anything else as
 * JSON (`null` for `undefined`), with secrets removed either way. Throws when
 * the value cannot be JSON (a BigInt, ...).
 */
export function serializeToolResult(result: unknown): string {
  if (typeof result === "string") return redactText(result);
  if (result === undefined) return "null";
  try {
    return JSON.stringify(result, redactingReplacer) ?? "null";
  } catch (error) {
    if (error !== unusualValue) throw error;
  }
  // The round trip applies toJSON (Dates, URLs, ...) before redaction walks plain objects.
  const plain: unknown = JSON.parse(JSON.stringify(result) ?? "null");
  return JSON.stringify(redactValue(plain));
}

/** Thrown by the replacer for a value only the round trip above handles exactly. */
const unusualValue = Symbol("unusual value");

/**
 * Redacts in the one pass of `JSON.stringify`, giving the text of the round
 * trip (stringify, parse, `redactValue`, stringify) for plain objects, arrays
 * and primitives. It sees each value after `toJSON`, as `redactValue` saw it
 * after the parse. What only the round trip gets exactly right gives up:
 * an object under a secret-named key (the round trip fails first if a BigInt
 * or a cycle is inside it), an object that is not a plain object or array
 * (a boxed string or number becomes a primitive only after the replacer),
 * and an own `__proto__` key (kept or dropped as `redactValue`'s copy does).
 * Such a value is then serialized again, its `toJSON` and getters called twice.
 */
function redactingReplacer(key: string, value: unknown): unknown {
  if (key === "__proto__") throw unusualValue;
  switch (typeof value) {
    case "string":
      if (value !== "" && isSecretKey(key)) return redactedMarker;
      return redactText(value);
    case "number":
      return Number.isFinite(value) && isSecretKey(key) ? redactedMarker : value;
    case "boolean":
      return isSecretKey(key) ? redactedMarker : value;
    case "object": {
      if (value === null) return value;
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== Array.prototype && prototype !== null) {
        throw unusualValue;
      }
      if (isSecretKey(key)) throw unusualValue;
      return value;
    }
    default:
      // undefined, functions and symbols are left out; a BigInt throws, as in the round trip.
      return value;
  }
}
