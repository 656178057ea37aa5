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
}

/**
 * The thread's latest run. Its runs are numbered from 1 without gaps, so
 * a few loads find the last (doubling, then halving), never a listing of
 * the store. A thread whose turn 1 is gone is either new or had its
 * oldest runs deleted (`runs prune` deletes by age, oldest first): the
 * store's listing tells which, and the latest surviving run goes on being
 * the thread's head, with its owner. Only a thread none of whose runs is
 * left starts over.
 */
export async function latestThreadRun(runStore: RunStore, threadId: string): Promise<ThreadHead> {
  const found = new Map<number, RunState>();
  const exists = async (turn: number): Promise<boolean> => {
    try {
      found.set(turn, await runStore.load(threadRunId(threadId, turn)));
      return true;
    } catch (error) {
      if (error instanceof RunNotFoundError) return false;
      throw error;
    }
  };
  let low = 1;
  if (!(await exists(1))) {
    const surviving = await survivingTurns(runStore, threadId);
    const first = (await firstThat(surviving, exists)) ?? 0;
    if (first === 0) return { turn: 0 };
    low = first;
  }
  let high = low + 1;
  while (await exists(high)) {
    low = high;
    high = low * 2;
  }
  // Turn `low` exists, turn `high` does not: the last one lies between.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await exists(middle)) low = middle;
    else high = middle;
  }
  return { turn: low, state: found.get(low) };
}

/** The turns of a thread's runs the store still holds, latest first, from its listing. */
async function survivingTurns(runStore: RunStore, threadId: string): Promise<number[]> {
  const prefix = threadRunId(threadId, 0).slice(0, -1);
  const turns: number[] = [];
  let after: string | undefined;
  do {
    const page = await runStore.list({ limit: 1000, ...(after ? { after } : {}) });
    for (const run of page.runs) {
      if (!run.runId.startsWith(prefix)) continue;
      const turn = Number(run.runId.slice(prefix.length));
      if (Number.isSafeInteger(turn) && turn > 0 && `${turn}` === run.runId.slice(prefix.length))
        turns.push(turn);
    }
    after = page.nextCursor;
  } while (after !== undefined);
  return turns.sort((left, right) => right - left);
}

/** The first turn that still loads (one may be deleted between the listing and its load). */
async function firstThat(
  turns: readonly number[],
  exists: (turn: number) => Promise<boolean>,
): Promise<number | undefined> {
  for (const turn of turns) if (await exists(turn)) return turn;
  return undefined;
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
