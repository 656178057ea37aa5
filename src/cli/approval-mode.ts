import type { CliIo } from "./cli-io.js";
import { usageError } from "./command-error.js";

/** The values of `--approve`. */
export const approvalModes = ["ask", "browser", "approve", "deny"] as const;

/**
 * How the messaging simulator answers approval requests: `ask` the person at
 * the terminal, let the person answer on the simulator's inbox page in a
 * `browser`, always `approve`, or always `deny`.
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
  return isTerminal(io) ? "ask" : "deny";
}

/**
 * The mode the messaging simulator of a command answers with: the one asked
 * for, or {@link defaultApprovalMode}. `ask` without a terminal is a usage
 * error: nobody could answer, and every question would wait for its timeout.
 */
export function simulatedApprovalMode(
  requested: ApprovalMode | undefined,
  io: Pick<CliIo, "stdin" | "stderr">,
): ApprovalMode {
  if (requested === "ask" && !isTerminal(io)) {
    throw usageError(
      "--approve ask needs a terminal (stdin and stderr), and this command has none, so nobody could answer: use --approve approve or --approve deny, or run it at a terminal.",
    );
  }
  return requested ?? defaultApprovalMode(io);
}

function isTerminal(io: Pick<CliIo, "stdin" | "stderr">): boolean {
  return io.stdin.isTTY === true && io.stderr.isTTY === true;
}
