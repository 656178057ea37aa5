import type { ApprovalPeek, Approver } from "../approver.js";
import type { RunState } from "./run-state.js";

/**
 * Whether every answer a suspended run waits for is still pending, read
 * with the approver's `peek` (nothing decided, nothing saved): a
 * worker then only moves the run's next check. `pending: false` whenever
 * a resume could do anything (the run is not suspended, a call of its step
 * is not waiting for an answer, the approver cannot peek, or some question
 * has an outcome), so the run is resumed and its answers read through the
 * approval gate. `expiresAt` is the earliest expiry the questions carry.
 * Rejects when the approver does (the service could not be reached).
 */
export async function peekPendingAnswers(
  state: RunState,
  approver: Approver | undefined,
  signal: AbortSignal,
): Promise<ApprovalPeek> {
  if (state.status !== "suspended" || typeof approver?.peek !== "function") {
    return { pending: false };
  }
  // The calls of one step asked together share their question's ticket: it is read once.
  const tickets = new Map<string, string[]>();
  for (const call of state.pendingCalls) {
    if (call.phase === "finished") continue;
    if (
      call.phase !== "awaiting_approval" ||
      call.ticket === undefined ||
      call.approvalId === undefined ||
      call.fingerprint === undefined
    ) {
      return { pending: false };
    }
    tickets.set(call.ticket, [...(tickets.get(call.ticket) ?? []), call.approvalId]);
  }
  if (tickets.size === 0) return { pending: false };
  let expiresAt: Date | undefined;
  for (const [ticket, approvalIds] of tickets) {
    const peek = await approver.peek(ticket, approvalIds, { signal });
    if (peek?.pending !== true) return { pending: false };
    if (peek.expiresAt instanceof Date && (!expiresAt || peek.expiresAt < expiresAt)) {
      expiresAt = peek.expiresAt;
    }
  }
  return { pending: true, ...(expiresAt ? { expiresAt } : {}) };
}
