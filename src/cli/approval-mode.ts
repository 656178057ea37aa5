import type { CliIo } from "./cli-io.js";

/** The values of `--approve`. */
export const approvalModes = ["ask", "approve", "deny"] as const;

/**
 * How the messaging simulator answers approval requests: `ask` the person at
 * the terminal, always `approve`, or always `deny`.
 */
export type ApprovalMode = (typeof approvalModes)[number];

/** True when `value` is one of {@link approvalModes}. */
export function isApprovalMode(value: unknown): value is ApprovalMode {
  return approvalModes.includes(value as ApprovalMode);
}

/**
 * The mode when `--approve` is not given: `ask` when there is a person at a
 * terminal (stdin and stderr are both terminals), otherwise `deny`, so an
 * unattended run never approves anything by default.
 */
export function defaultApprovalMode(io: Pick<CliIo, "stdin" | "stderr">): ApprovalMode {
  return io.stdin.isTTY === true && io.stderr.isTTY === true ? "ask" : "deny";
}
