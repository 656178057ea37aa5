import { callbackHoldTypes, isCallbackHoldType } from "./callback-hold-types.js";
import { callbackMessageTypes, isCallbackMessageType } from "./callback-message-types.js";

/**
 * Checks one callback message type (optionally `all`, for the list filter),
 * returning a problem that lists the valid names, or undefined when it is valid.
 */
export function checkCallbackMessageType(
  value: unknown,
  label: string,
  allowAll: boolean,
): string | undefined {
  if (isCallbackMessageType(value) || (allowAll && value === "all")) return undefined;
  const hint = isCallbackHoldType(value)
    ? " is a hold type but not a callback message type (the two lists differ)"
    : " is not a callback message type";
  const valid = allowAll ? [...callbackMessageTypes, "all"] : callbackMessageTypes;
  return `${label} ${describeName(value)}${hint}; valid names: ${valid.join(", ")}`;
}

/**
 * Checks a list of hold types and returns it without duplicates, pushing one
 * problem per bad entry into `problems` (callback types that are not hold
 * types are pointed out, since the two lists differ).
 */
export function checkHoldTypes(types: unknown, label: string, problems: string[]): string[] {
  if (!Array.isArray(types) || types.length === 0) {
    problems.push(
      `${label} must be a non-empty array of hold types; valid names: ${callbackHoldTypes.join(", ")}`,
    );
    return [];
  }
  const unique: string[] = [];
  types.forEach((type: unknown, index) => {
    if (isCallbackHoldType(type)) {
      if (!unique.includes(type)) unique.push(type);
      return;
    }
    const hint = isCallbackMessageType(type)
      ? " is a callback message type but not a hold type (the two lists differ)"
      : " is not a hold type";
    problems.push(
      `${label}[${index}] ${describeName(type)}${hint}; valid names: ${callbackHoldTypes.join(", ")}`,
    );
  });
  return unique;
}

/** Quotes a name for an error message without echoing long or non-string input. */
export function describeName(value: unknown): string {
  if (typeof value !== "string") return `(${value === null ? "null" : typeof value})`;
  return value.length > 60 ? `"${value.slice(0, 60)}…"` : `"${value}"`;
}
