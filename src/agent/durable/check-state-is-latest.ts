import { RunRolledBackError } from "./durable-errors.js";
import type { RunState } from "./run-state.js";
import type { RunStore } from "./run-store.js";

/**
 * Throws a `RunRolledBackError` naming `source` when the state waits for an
 * answer whose approval already let a call run (the state's own list, or
 * the store's `isApprovalUsed`): it is an older copy of the run put back in
 * place of the one that used it. A sealed state passes its seal check
 * either way, so this is what tells the older copy apart.
 */
export async function checkStateIsLatest(
  state: RunState,
  store: RunStore | undefined,
  source: string,
): Promise<void> {
  const used = new Set(state.usedApprovals ?? []);
  for (const call of state.pendingCalls) {
    const { approvalId } = call;
    if (call.phase !== "awaiting_approval" || approvalId === undefined) continue;
    if (used.has(approvalId) || (await store?.isApprovalUsed(approvalId)) === true) {
      throw new RunRolledBackError(source, state.runId, approvalId);
    }
  }
}
