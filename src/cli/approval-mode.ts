import type { CliIo } from "./cli-io.js";
import { usageError } from "./command-error.js";
import { type ServiceSettings, serviceVariables } from "./read-service-settings.js";

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

/** The services whose actions cannot be undone, and so are asked about. */
const destructiveServices = ["orders", "docs"] as const;

/**
 * Refuses a simulated approval that would unlock a real service: with the
 * messaging simulator answering `approve` on its own, or taking answers on
 * its inbox page (`browser`), anything on the machine that reaches the
 * simulator could approve a real deletion. A real order or docs service
 * therefore needs the real messaging service, where the person behind the
 * approver link answers; `ask` (this terminal) and `deny` stay allowed.
 */
export function checkSimulatedApprovals(
  mode: ApprovalMode,
  settings: Pick<ServiceSettings, "messaging" | (typeof destructiveServices)[number]>,
): void {
  if (settings.messaging !== undefined || (mode !== "approve" && mode !== "browser")) return;
  const real = destructiveServices.filter((service) => settings[service] !== undefined);
  if (real.length === 0) return;
  const named = real
    .map((service) => `${serviceVariables[service].url} names a real ${service} service`)
    .join(" and ");
  throw usageError(
    `--approve ${mode} lets the messaging simulator approve, and ${named}: real actions need the real messaging service. Set SWITCHYARD_MESSAGING_URL, SWITCHYARD_MESSAGING_TOKEN and SWITCHYARD_APPROVER_LINK so the person behind the link approves, or use --approve ask (at this terminal) or --approve deny.`,
  );
}

function isTerminal(io: Pick<CliIo, "stdin" | "stderr">): boolean {
  return io.stdin.isTTY === true && io.stderr.isTTY === true;
}
