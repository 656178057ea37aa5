import type { RunClaim } from "../agent/durable/run-queue.js";
import type { RunState } from "../agent/durable/run-state.js";
import { checkRunStateSeal, sealRunState } from "../agent/durable/seal-run-state.js";
import { MessagingClient } from "../clients/messaging/messaging-client.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";
import type { CliIo } from "./cli-io.js";
import { usageError } from "./command-error.js";
import { describeFailure } from "./describe-failure.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { loadSavedRun } from "./load-saved-run.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";
import { stateKeyOf } from "./open-state-directory.js";
import { readServiceSettings } from "./read-service-settings.js";

/** The `error.name` of a run ended by `switchyard runs cancel`; its status is `aborted`. */
export const runCancelledName = "RunCancelled";

/**
 * `switchyard runs cancel <run-id>`: ends a suspended run for good. Each
 * question it waits for is withdrawn (its message cancelled) through the
 * messaging service the environment names, where that still can be done;
 * then the run is saved `aborted`, its error named `RunCancelled`, so
 * `resume` refuses it and `runs prune` may remove it. A run marked running
 * is refused unless `takeOver` says its process is gone. Resolves to the
 * exit status.
 */
export async function cancelRun(
  runId: string,
  options: { takeOver: boolean; io: CliIo },
): Promise<ExitCode> {
  const { io } = options;
  const directory = await openRunStorage(io.env);
  try {
    return await cancelStoredRun(directory, runId, options);
  } finally {
    await directory.close();
  }
}

async function cancelStoredRun(
  directory: RunStorage,
  runId: string,
  options: { takeOver: boolean; io: CliIo },
): Promise<ExitCode> {
  const { io } = options;
  const state = await loadSavedRun(directory, runId, "cancelled");
  // With SWITCHYARD_STATE_KEY the saved states are sealed: only a genuine one is re-sealed as cancelled.
  const stateKey = stateKeyOf(io.env);
  if (stateKey !== undefined) {
    try {
      checkRunStateSeal(state, stateKey, `run "${runId}"`);
    } catch (error) {
      throw usageError(`Run "${runId}" cannot be cancelled: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  if (state.status === "running" && !options.takeOver) {
    throw usageError(
      `Run "${runId}" is marked running (last saved ${state.updatedAt}): another process may still be working on it. If that process is gone, run switchyard runs cancel ${runId} --take-over.`,
    );
  }
  if (state.status !== "suspended" && state.status !== "running") {
    throw usageError(
      `Run "${runId}" already ended with status ${state.status} (last saved ${state.updatedAt}); there is nothing to cancel (switchyard runs prune removes old runs).`,
    );
  }
  const claim: RunClaim | undefined = await directory.store.claim(runId, {
    takeOver: options.takeOver,
  });
  try {
    const withdrawn = await withdrawQuestions(state, io);
    const now = new Date().toISOString();
    const cancelled: RunState = {
      ...state,
      // A new revision: a save still expecting the one cancelled is refused, not un-cancelling it.
      revision: state.revision + 1,
      status: "aborted",
      updatedAt: now,
      error: {
        name: runCancelledName,
        message: `Cancelled with switchyard runs cancel at ${now}.`,
      },
    };
    await directory.store.save(
      stateKey === undefined ? cancelled : sealRunState(cancelled, stateKey),
      {
        expectedRevision: state.revision,
        ...(claim ? { claim } : {}),
      },
    );
    for (const line of withdrawn) io.stderr.write(`${line}\n`);
    io.stderr.write(`Run "${runId}" cancelled: resume refuses it now.\n`);
    io.stdout.write(`${runId}\n`);
    return exitCodes.completed;
  } finally {
    await claim?.release();
  }
}

/**
 * Cancels the message of each question the run waits for, through the
 * messaging service the environment names; one line each on what
 * happened, every part the service or the saved file gave escaped. Used
 * by `runs cancel` and by `switchyard worker` when it gives up on a run.
 */
export async function withdrawQuestions(state: RunState, io: CliIo): Promise<string[]> {
  const lines = await withdrawalLines(state, io);
  return lines.map(escapeUntrustedText);
}

async function withdrawalLines(state: RunState, io: CliIo): Promise<string[]> {
  // The calls of one step asked together wait on one question: it is withdrawn once.
  const byInteraction = new Map<string, { interactionId: string; toolName: string }>();
  for (const call of state.pendingCalls) {
    if (call.phase !== "awaiting_approval" || call.interactionId === undefined) continue;
    const seen = byInteraction.get(call.interactionId);
    byInteraction.set(call.interactionId, {
      interactionId: call.interactionId,
      toolName: seen ? `${seen.toolName}, ${call.toolName}` : call.toolName,
    });
  }
  const questions = [...byInteraction.values()];
  if (questions.length === 0) return [];
  const settings = readServiceSettings(io.env);
  if (!settings.messaging) {
    return questions.map(
      (call) =>
        `note: the question about ${call.toolName} (interaction ${call.interactionId}) was not withdrawn: SWITCHYARD_MESSAGING_URL is not set; it stays open until it expires, and an answer to it runs nothing.`,
    );
  }
  const client = new MessagingClient({
    baseUrl: settings.messaging.url,
    token: settings.messaging.token,
  });
  return Promise.all(
    questions.map(async (call) => {
      const about = `the question about ${call.toolName} (interaction ${call.interactionId})`;
      try {
        const interaction = await client.getInteraction(call.interactionId);
        if (interaction.state !== "pending") {
          return `${about} was already ${interaction.state}; nothing to withdraw.`;
        }
        if (interaction.messageId === undefined) {
          return `note: ${about} could not be withdrawn (the service did not say which message carries it); an answer to it runs nothing.`;
        }
        await client.cancelMessage(interaction.messageId);
        const after = await client.getInteraction(call.interactionId);
        return after.state === "canceled"
          ? `withdrew ${about}.`
          : `note: ${about} could not be withdrawn (it is ${after.state}); an answer to it runs nothing.`;
      } catch (error) {
        const failure = describeFailure(error, {});
        return `note: ${about} could not be withdrawn (${failure.message}); an answer to it runs nothing.`;
      }
    }),
  );
}
