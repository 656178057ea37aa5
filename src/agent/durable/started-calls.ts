import type { CallStart, CallStartOutcome } from "./run-store.js";

/**
 * An agent's own record of the calls its runs started and the approvals they
 * spent, for runs without a run store: the in-memory form of
 * `RunStore.startCall`, one synchronous step, so spending and starting
 * cannot come apart. It lives as long as the agent (nothing is
 * process-wide); a run store keeps the same record across processes.
 */
export class StartedCalls {
  /** Each spent approval's id to the run (`""`: one without an id) and call that spent it. */
  readonly #approvals = new Map<string, { runId: string; toolCallId: string }>();
  /** `<runId>\n<contentKey>` and `<runId>\n<toolCallId>` to the call that started. */
  readonly #calls = new Map<string, { toolCallId: string; content?: string }>();

  /**
   * Spends the approval and records the start, or says why the call must
   * not run. A run without an id (never resumed) spends approvals only.
   */
  start(runId: string | undefined, start: CallStart): CallStartOutcome {
    const approvalKey = start.approval;
    const spentBy = approvalKey === undefined ? undefined : this.#approvals.get(approvalKey);
    if (spentBy) return { outcome: "already_used", ...spentBy };
    const earlier =
      runId === undefined
        ? undefined
        : (this.#calls.get(`${runId}\nid\n${start.toolCallId}`) ??
          this.#calls.get(`${runId}\ncontent\n${start.contentKey}`));
    if (earlier) return { outcome: "already_started", ...earlier };
    if (approvalKey !== undefined) {
      this.#approvals.set(approvalKey, { runId: runId ?? "", toolCallId: start.toolCallId });
    }
    if (runId === undefined) return { outcome: "started" };
    const record = { toolCallId: start.toolCallId };
    this.#calls.set(`${runId}\nid\n${start.toolCallId}`, record);
    this.#calls.set(`${runId}\ncontent\n${start.contentKey}`, record);
    return { outcome: "started" };
  }

  /** Keeps the tool message of a call `start` recorded. */
  finish(runId: string, toolCallId: string, content: string): void {
    const record = this.#calls.get(`${runId}\nid\n${toolCallId}`);
    if (record) record.content = content;
  }
}
