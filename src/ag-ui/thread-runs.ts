import { createHash } from "node:crypto";
import { RunNotFoundError } from "../agent/durable/durable-errors.js";
import type { RunState } from "../agent/durable/run-state.js";
import type { RunStore } from "../agent/durable/run-store.js";
import type { ModelMessage } from "../agent/model-message.js";

/** The key of a run's metadata naming the AG-UI thread it belongs to. */
export const threadMetadataKey = "agUiThreadId";

/** The key of a run's metadata naming the person who started its thread (`""`: nobody was named). */
export const ownerMetadataKey = "agUiThreadOwner";

/**
 * The run id of a thread's `turn`th run (from 1): one run per user message,
 * named after the thread, so the run store is the thread's memory and two
 * requests starting the same turn cannot both take it (a run id is taken
 * once). The thread id is hashed: any text a client chose fits a run id.
 */
export function threadRunId(threadId: string, turn: number): string {
  const key = createHash("sha256").update(threadId).digest("base64url").slice(0, 22);
  return `agui_${key}_${turn}`;
}

/** A thread's latest run, as the run store holds it. */
export interface ThreadHead {
  /** How many turns the thread has had: its latest run's number, 0 for a new thread. */
  turn: number;
  /** The latest run's state; absent for a new thread. */
  state?: RunState | undefined;
  /**
   * Turns between the thread's oldest run left and its latest whose runs
   * are gone (deleted by hand, or by `runs prune` out of order), oldest
   * first, a turn or a range of them (`"4"`, `"6-9"`); empty when none
   * is. The latest run still holds what was said in them: each run holds
   * the whole conversation before it.
   */
  missingTurns: string[];
}

/**
 * The thread's latest run: the highest turn among the thread's runs the
 * store holds, found by listing only the thread's runs (`runIdPrefix`), so
 * it costs what the thread has, never what the store holds. A thread none
 * of whose runs is left is new (turn 0). Turns missing between its runs do
 * not stop it: it goes on from its latest run, and `missingTurns` names
 * them.
 */
export async function latestThreadRun(runStore: RunStore, threadId: string): Promise<ThreadHead> {
  const turns = await threadTurns(runStore, threadId);
  // The latest that still loads: one may be deleted between the listing and its load.
  for (let index = turns.length - 1; index >= 0; index--) {
    const turn = turns[index]!;
    let state: RunState;
    try {
      state = await runStore.load(threadRunId(threadId, turn));
    } catch (error) {
      if (error instanceof RunNotFoundError) continue;
      throw error;
    }
    return { turn, state, missingTurns: missingBetween(turns.slice(0, index + 1)) };
  }
  return { turn: 0, missingTurns: [] };
}

/** The turns of the thread's runs the store holds, oldest first. */
async function threadTurns(runStore: RunStore, threadId: string): Promise<number[]> {
  const prefix = threadRunId(threadId, 0).slice(0, -1);
  const turns = new Set<number>();
  let after: string | undefined;
  do {
    const page = await runStore.list({
      runIdPrefix: prefix,
      limit: 1000,
      ...(after ? { after } : {}),
    });
    // A store that does not know runIdPrefix lists every run: only the thread's count.
    for (const run of page.runs) {
      const suffix = run.runId.startsWith(prefix) ? run.runId.slice(prefix.length) : "";
      const turn = Number(suffix);
      if (Number.isSafeInteger(turn) && turn > 0 && `${turn}` === suffix) turns.add(turn);
    }
    after = page.nextCursor;
  } while (after !== undefined);
  return [...turns].sort((left, right) => left - right);
}

/** The turns missing between the first and the last of these ascending turns, as ranges (`"4"`, `"6-9"`). */
function missingBetween(turns: readonly number[]): string[] {
  const missing: string[] = [];
  for (let index = 1; index < turns.length; index++) {
    const [from, to] = [turns[index - 1]! + 1, turns[index]! - 1];
    if (from === to) missing.push(`${from}`);
    else if (from < to) missing.push(`${from}-${to}`);
  }
  return missing;
}

/**
 * The conversation a thread's next run continues: what the model saw and
 * said in the thread's latest run, tool results included, as the run store
 * keeps it (secrets removed), without the instructions (the next run adds
 * the agent's own). Calls of a step the run stopped in get a tool message
 * saying what became of them, so the conversation stays whole.
 */
export function threadConversation(state: RunState): ModelMessage[] {
  const messages = state.messages.filter((message) => message.role !== "system");
  for (const call of state.pendingCalls) {
    messages.push({
      role: "tool",
      tool_call_id: call.toolCallId,
      content:
        call.phase === "finished" && call.content !== undefined
          ? call.content
          : call.phase === "started"
            ? "This call had started when the run stopped; whether it took effect is unknown."
            : "This call did not run: the run stopped before it could.",
    });
  }
  return messages;
}
