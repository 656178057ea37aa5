import { RequestSlots } from "../internal/http/request-slots.js";
import { redactText } from "../internal/redact.js";
import { StepQuestion } from "./approval/step-question.js";
import { consultApprover } from "./approval-gate.js";
import { describeThrown } from "./describe-thrown.js";
import type { ToolCallEnvironment } from "./execute-tool-call.js";
import { followSignal } from "./follow-signal.js";
import type { ModelToolCall } from "./model-message.js";
import { runConcurrently } from "./run-concurrently.js";
import type { ToolCallRecord } from "./run-result.js";
import { runToolCall } from "./run-tool-call.js";

/**
 * Runs the tool calls of one model answer, at most `toolConcurrency` at a
 * time. Emits `tool-call` for each first, `tool-result` as each ends (also
 * for a call left `awaiting_approval`), records each outcome in the run's
 * journal, and returns the records in the order the model asked. Each call
 * goes through {@link runToolCall}, so no secret and no oversized message
 * goes on.
 */
export async function executeToolCalls(
  calls: readonly ModelToolCall[],
  environment: ToolCallEnvironment,
): Promise<ToolCallRecord[]> {
  const { emit, stepNumber, logger } = environment;
  for (const call of calls) {
    emit({
      type: "tool-call",
      stepNumber,
      toolCallId: call.id,
      toolName: call.function.name,
      rawArguments: call.function.arguments,
    });
  }
  // Calls running side by side listen to one step signal, not each to the caller's.
  const step =
    calls.length > 1 && environment.toolConcurrency > 1
      ? followSignal(environment.signal)
      : undefined;
  const callEnvironment = step ? { ...environment, signal: step.signal } : environment;
  const together = askedTogether(calls.length, callEnvironment);
  try {
    // Asked together, every call goes as far as its question at once; the
    // tool runs keep to toolConcurrency through the step's slots.
    const limit = together ? calls.length : environment.toolConcurrency;
    return await runConcurrently(calls, limit, async (call, index) => {
      const record = await runToolCall(
        call,
        together
          ? {
              ...callEnvironment,
              stepQuestion: together.question.seat(index),
              toolSlots: together.slots,
            }
          : callEnvironment,
      );
      await environment.journal.recordOutcome(record);
      if (logger.isLevelEnabled("debug")) {
        logger.debug(
          { tool: record.toolName, toolCallId: record.toolCallId, status: record.status },
          `tool call ${record.status}`,
        );
      }
      emit({ type: "tool-result", stepNumber, toolCall: record });
      await notifySettled(environment, record);
      return record;
    });
  } finally {
    step?.release();
  }
}

/**
 * The step's one question and tool slots, when its calls are asked
 * together: several calls, and an approver to ask.
 */
function askedTogether(
  calls: number,
  environment: ToolCallEnvironment,
): { question: StepQuestion; slots: RequestSlots } | undefined {
  const { approver, signal, logger, journal, bindInteraction } = environment;
  if (calls < 2 || approver === undefined) return undefined;
  const question = new StepQuestion(calls, (actions, allowPending) =>
    consultApprover({
      approver,
      actions,
      signal,
      logger,
      allowPending,
      ...(journal.runId !== undefined ? { runId: journal.runId } : {}),
      ...(journal.task !== undefined ? { task: journal.task } : {}),
      ...(bindInteraction !== undefined ? { bindInteraction } : {}),
    }),
  );
  return { question, slots: new RequestSlots(environment.toolConcurrency) };
}

/** The agent's `onToolCallSettled`, awaited; what it throws is logged, not the call's outcome. */
async function notifySettled(environment: ToolCallEnvironment, record: ToolCallRecord) {
  const { onToolCallSettled, stepNumber, logger } = environment;
  if (!onToolCallSettled) return;
  try {
    await onToolCallSettled(record, { stepNumber });
  } catch (error) {
    logger.warn({ error: redactText(describeThrown(error)) }, "onToolCallSettled threw; ignored");
  }
}
