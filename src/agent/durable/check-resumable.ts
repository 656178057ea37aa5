import { ConfigurationError } from "../../errors/configuration-error.js";
import type { Approver } from "../approver.js";
import { RunNotResumableError } from "./durable-errors.js";
import type { RunState } from "./run-state.js";

/**
 * Throws unless the run can go on in this process: it is `suspended` (or
 * `running` with `takeOver`, after a crash), an approver able to read
 * earlier answers is there when some call awaits one, and the step budget
 * is not spent.
 */
export function checkResumable(
  state: RunState,
  options: { approver: Approver | undefined; takeOver: boolean; maxSteps: number },
): void {
  const { runId, status } = state;
  if (status === "running" && !options.takeOver) {
    throw new RunNotResumableError(
      runId,
      status,
      `Run "${runId}" is marked running (last saved ${state.updatedAt}): another process may still be working on it. If that process is gone (it crashed or was killed), resume with { takeOver: true }; destructive calls it had started are not run again.`,
      { takeOver: true },
    );
  }
  if (status !== "running" && status !== "suspended") {
    throw new RunNotResumableError(
      runId,
      status,
      `Run "${runId}" already ended with status ${status}; only a suspended run can be resumed. To go on with its conversation, start a new run with state.messages as the input.`,
      { startNewRun: true },
    );
  }
  const awaiting = state.pendingCalls.filter((call) => call.phase === "awaiting_approval");
  const unnamed = awaiting.filter(
    (call) => call.approvalId === undefined || call.ticket === undefined,
  );
  if (unnamed.length > 0) {
    // Saved by a version whose approvals had no ids: its answer cannot be bound to one.
    throw new RunNotResumableError(
      runId,
      status,
      `Run "${runId}" waits for the answer to ${unnamed.map((call) => `${call.toolName} (interaction ${call.interactionId ?? "unknown"})`).join(", ")}, asked by an earlier version of switchyard-agents whose approvals had no approval id; this version reads answers by approval id only, so it does not read that one. Cancel the run (switchyard runs cancel ${runId}, which withdraws the question) and start a new run with its messages, or resume it with the version that saved it.`,
      { startNewRun: true },
    );
  }
  if (awaiting.length > 0 && options.approver === undefined) {
    throw new ConfigurationError(
      `Run "${runId}" waits for the answer to ${awaiting.length} approval request(s) (${awaiting.map((call) => call.toolName).join(", ")}), and this agent has no approver to read it. Resume it with the approver that asked, e.g. a MessagingApprover for the same messaging service.`,
    );
  }
  if (state.pendingCalls.length === 0 && state.stepCount >= options.maxSteps) {
    throw new ConfigurationError(
      `Run "${runId}" has made ${state.stepCount} model call(s), its whole budget of ${options.maxSteps}; pass a larger maxSteps to resume it.`,
    );
  }
}
