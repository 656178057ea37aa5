import { actionFingerprint } from "../../internal/canonical-json.js";
import type { AnyTool } from "../../tools/tool.js";

/**
 * The fingerprint of a call of `tool` with `args` (its name, the canonical
 * JSON of the arguments and its `target`), or undefined when the arguments
 * have no faithful JSON form, so no approval can bind to them.
 */
export function fingerprintOf(
  tool: Pick<AnyTool, "name" | "target">,
  args: unknown,
): string | undefined {
  try {
    return actionFingerprint(tool.name, args, tool.target);
  } catch {
    return undefined;
  }
}

/**
 * The one fingerprint check: whether `fingerprint` (an approver's answer, a
 * question saved in a run, the arguments about to run, a frozen copy) is
 * exactly the `expected` one. Anything else, a missing or non-string value
 * included, is a mismatch, and the call does not run.
 */
export function sameFingerprint(fingerprint: unknown, expected: string): boolean {
  return typeof fingerprint === "string" && fingerprint === expected;
}
