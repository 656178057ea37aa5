import { actionFingerprint } from "../internal/canonical-json.js";
import { sameFingerprint } from "./approval/fingerprint-check.js";

/** The arguments an approved call runs with, and the fingerprint its approval binds to. */
export interface FrozenArguments {
  args: unknown;
  fingerprint: string;
}

/**
 * A deep-frozen copy of a call's arguments and its fingerprint (with the
 * tool's `target`, where it acts), so nothing
 * that sees the arguments before the call runs (the describer, the approver,
 * its audit hook) can change what runs. Throws a TypeError when the
 * arguments have no faithful JSON form or do not survive the copy (a class
 * instance becomes a plain object): no approval could bind to them.
 */
export function freezeArguments(toolName: string, args: unknown, target?: object): FrozenArguments {
  const fingerprint = actionFingerprint(toolName, args, target);
  let copy: unknown;
  try {
    copy = deepFreeze(structuredClone(args));
  } catch (error) {
    throw new TypeError(`the arguments cannot be copied: ${(error as Error).message}`);
  }
  if (!sameFingerprint(actionFingerprint(toolName, copy, target), fingerprint)) {
    throw new TypeError(
      "the arguments do not survive a copy unchanged (a class instance with toJSON?); use plain objects and arrays",
    );
  }
  return { args: copy, fingerprint };
}

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
