import { RunNotFoundError, RunStoreError } from "../agent/durable/durable-errors.js";
import type { RunStore } from "../agent/durable/run-store.js";
import type { RunResult } from "../agent/run-result.js";
import { redactText } from "../internal/redact.js";
import type { CliIo } from "./cli-io.js";

/**
 * Saves the run's last state unless the store already holds it (or a newer
 * one). An agent built with `runStore: services.runStore` saved it itself;
 * one whose example ignores `services.runStore` only returned it, and this
 * keeps the run resumable anyway, with a note saying so on stderr. A save
 * that fails is a warning: how the run ended is still reported.
 */
export async function keepRunState(
  store: RunStore,
  result: RunResult,
  options: { io: CliIo; example: string },
): Promise<void> {
  const state = result.state;
  if (!state || result.runId === undefined) return;
  try {
    try {
      const stored = await store.load(state.runId);
      // The store already holds this state or a later one: nothing to keep.
      if (stored.revision >= state.revision) return;
    } catch (error) {
      if (!(error instanceof RunNotFoundError)) throw error;
    }
    await store.save(state);
    options.io.stderr.write(
      result.error instanceof RunStoreError
        ? `note: the agent's last save of run ${state.runId} failed; the command saved it again.\n`
        : `note: the ${options.example} agent keeps no run store (pass runStore: services.runStore to its Agent); the command saved run ${state.runId} at the end instead.\n`,
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    options.io.stderr.write(
      `warning: run ${state.runId} could not be saved, so it cannot be resumed: ${redactText(reason)}\n`,
    );
  }
}
