import { SwitchyardError } from "../errors/switchyard-error.js";
import { AbortedError } from "../errors/transport-errors.js";
import { redactText } from "../internal/redact.js";
import type { AnyTool } from "../tools/tool.js";
import type { AgentEventSink } from "./agent-events.js";
import type { AgentSettings } from "./agent-options.js";
import { ApprovalExpiredError } from "./approval/approval-expiry.js";
import { type RunStarter, resolveRunStarter } from "./approval/run-starter.js";
import type { ApprovalContext } from "./approver.js";
import { callModel, type ModelCallMode } from "./call-model.js";
import { describeThrown } from "./describe-thrown.js";
import type { RunJournal } from "./durable/run-journal.js";
import type { RunState } from "./durable/run-state.js";
import { InvalidOutputError } from "./errors.js";
import { executeToolCalls } from "./execute-tool-calls.js";
import type { ModelResponse, ModelUsage } from "./model.js";
import type { AssistantModelMessage, ModelToolCall } from "./model-message.js";
import { normalizeAssistantMessage } from "./normalize-assistant-message.js";
import { prepareStepRequest, type StepRequest, stepRequest } from "./prepare-step.js";
import { requestedToolCalls } from "./requested-tool-calls.js";
import {
  admitToolCalls,
  type BudgetContext,
  budgetOverrunError,
  checkBudgetBeforeModelCall,
} from "./run-budget.js";
import {
  addUsage,
  type RunResult,
  type RunStatus,
  type RunStep,
  runOutcome,
  type ToolCallRecord,
} from "./run-result.js";
import { anyStopConditionHolds, decideStop, runAbortedError } from "./stop-conditions.js";
import { outputCorrectionMessage } from "./structured-output.js";
import { toolMessages } from "./tool-messages.js";

/** One run's inputs: the agent's settings and what this run was given. */
export interface RunLoopOptions {
  settings: AgentSettings;
  /** The run's conversation, step count and usage; the loop appends to them. */
  journal: RunJournal;
  maxSteps: number;
  /** The caller's signal, or `neverAborted` when there is none. */
  signal: AbortSignal;
  mode: ModelCallMode;
  emit: AgentEventSink;
  /** A pending approval suspends the run instead of being a refusal. */
  suspendOnApproval: boolean;
}

/** What settling one step's tool calls needs. */
interface StepInput {
  stepNumber: number;
  /** The tools offered for this step, when `prepareStep` narrowed them. */
  tools?: ReadonlyMap<string, AnyTool>;
  message: AssistantModelMessage;
  calls: readonly ModelToolCall[];
  /** Calls of the step that did not run: the run's tool-call budget was spent. */
  beyondBudget?: readonly ToolCallRecord[];
  finishReason: string | null;
  usage: ModelUsage | undefined;
  /**
   * The model asked for tools in this step. @default some of `calls`; a
   * resumed step whose calls had all ended before asked for them all the same
   */
  askedForTools?: boolean;
}

/**
 * The agent loop, shared by `run()`, `stream()` and `resume()`: call the
 * model, run the tools it asks for, append their results, until it answers
 * without tools, the step budget is spent, the signal fires, the model fails
 * or an approval is pending (a durable run suspends). A resumed run first
 * settles the calls of the step it stopped in. Never rejects; the last
 * event emitted is always `finish`.
 */
export async function runLoop(options: RunLoopOptions): Promise<RunResult<unknown>> {
  const { settings, journal, signal, emit } = options;
  const { messages } = journal;
  const steps: RunStep[] = [];
  // The parsed answer of a structured run, and the answers read so far.
  let structured: unknown;
  let outputAttempts = 0;
  const audit = {
    log: settings.auditLog,
    onApprovalDecided: settings.onApprovalDecided,
    secrets: settings.secrets,
    logger: settings.logger,
  };

  const finish = async (status: RunStatus, error?: Error): Promise<RunResult<unknown>> => {
    let finalStatus = status;
    let finalError = error === undefined ? undefined : settings.secrets.redactError(error);
    let state: RunState | undefined;
    try {
      state = await journal.save(status, error);
    } catch (storeError) {
      finalStatus = "failed";
      finalError = settings.secrets.redactError(storeError as Error);
      state = journal.snapshot();
    }
    const unknown = journal.outcomeUnknownCalls();
    const result: RunResult<unknown> = {
      ...runOutcome(finalStatus, finalError),
      output: settings.output ? structured : (steps.at(-1)?.message.content ?? ""),
      messages: [...messages],
      steps,
      usage: { ...journal.usage },
      runId: journal.runId,
      ...(unknown.length > 0 ? { outcomeUnknownCalls: unknown } : {}),
      ...(state ? { state } : {}),
    };
    if (settings.logger.isLevelEnabled("debug")) {
      settings.logger.debug(
        { status: finalStatus, runId: journal.runId, steps: steps.length, usage: result.usage },
        `run ${finalStatus}`,
      );
    }
    emit({ type: "finish", result });
    return result;
  };

  // Which question each interaction of an approver holds, kept in the run store under this run.
  const bindInteraction: ApprovalContext["bindInteraction"] = (binding) =>
    settings.runStore.bindInteraction({ ...binding, runId: journal.runId });

  // Who started the run, as the approver directory knows them (resolved once the run starts).
  let starter: RunStarter | undefined;

  /** Settles a step's tool calls; returns the result when the run ends with it. */
  const settleStep = async (step: StepInput): Promise<RunResult<unknown> | undefined> => {
    const executed = await executeToolCalls(step.calls, {
      tools: step.tools ?? settings.tools,
      onToolCallSettled: settings.onToolCallSettled,
      approver: settings.approver,
      bindInteraction,
      approverDirectory: settings.approverDirectory,
      starter,
      approvalPolicy: settings.approvalPolicy,
      onApprovalExpired: settings.onApprovalExpired,
      audit,
      signal,
      logger: settings.logger,
      toolTimeoutMs: settings.toolTimeoutMs,
      toolConcurrency: settings.toolConcurrency,
      stepNumber: step.stepNumber,
      emit,
      journal,
      suspendOnApproval: options.suspendOnApproval,
      secrets: settings.secrets,
      maxToolResultChars: settings.maxToolResultChars,
    });
    const records = [...executed, ...(step.beyondBudget ?? [])];
    const awaiting = records.some((record) => record.status === "awaiting_approval");
    if (awaiting && signal.aborted) {
      // The caller stopped the run: a pending question ends like any call cut short.
      for (const [index, record] of records.entries()) {
        if (record.status !== "awaiting_approval") continue;
        const cut = {
          ...record,
          status: "aborted" as const,
          error: new AbortedError("The run was aborted by the caller"),
          content: toolMessages.aborted(record.toolName),
        };
        records[index] = cut;
        await journal.recordOutcome(cut);
      }
    }
    const runStep: RunStep = {
      stepNumber: step.stepNumber,
      message: step.message,
      finishReason: step.finishReason,
      usage: step.usage,
      toolCalls: records,
    };
    steps.push(runStep);
    if (journal.storeError) return finish("failed", journal.storeError);
    if (awaiting && !signal.aborted) return finish("suspended");

    messages.push(...journal.closeStep());
    emit({ type: "step-finish", stepNumber: step.stepNumber, step: runStep });
    if (settings.onStepFinish) {
      await callObserver(settings, "onStepFinish", () => settings.onStepFinish?.(runStep));
    }
    const expired = records.filter((record) => record.status === "expired");
    if (expired.length > 0 && settings.onApprovalExpired === "end" && !signal.aborted) {
      return finish(
        "approval_expired",
        new ApprovalExpiredError(expired.map((record) => record.toolName)),
      );
    }
    const overrun = journal.budget && budgetOverrunError(journal.budget);
    if (overrun && !signal.aborted) return finish("budget_exhausted", overrun);
    const askedForTools = step.askedForTools ?? step.calls.length > 0;
    if (!askedForTools && settings.output && !signal.aborted) {
      const answer = settings.output.read(step.message.content);
      outputAttempts++;
      if (answer.success) {
        structured = answer.value;
      } else if (outputAttempts > settings.outputRetries || step.stepNumber >= options.maxSteps) {
        const text = step.message.content ?? "";
        const attempts = outputAttempts;
        return finish("failed", new InvalidOutputError({ text, issues: answer.issues, attempts }));
      } else {
        messages.push({ role: "user", content: outputCorrectionMessage(answer.issues) });
        return saveRunning();
      }
    }
    if (
      askedForTools &&
      !signal.aborted &&
      settings.stopWhen.length > 0 &&
      (await anyStopConditionHolds(settings.stopWhen, steps))
    ) {
      return finish("completed");
    }
    const stop = decideStop({
      signal,
      askedForTools,
      stepNumber: step.stepNumber,
      maxSteps: options.maxSteps,
    });
    if (stop) return finish(stop.status, stop.error);
    return saveRunning();
  };

  /** Saves the run between steps; the result when that fails. */
  const saveRunning = async (): Promise<RunResult<unknown> | undefined> => {
    try {
      await journal.saveBetweenSteps();
    } catch (error) {
      return finish("failed", error as Error);
    }
    return undefined;
  };

  const budget: BudgetContext | undefined = journal.budget && {
    budget: journal.budget,
    usage: journal.usage,
    runId: journal.runId,
    approver: settings.approver,
    bindInteraction,
    secrets: settings.secrets,
    audit,
    signal,
    emit,
  };

  try {
    // A resumed run is saved running with its first write (a call's start,
    // a step's end): the store holds it, claimed, already.
    if (!journal.resumed) await journal.save("running");
    try {
      starter = await resolveRunStarter(settings.approverDirectory, journal.startedBy);
    } catch (error) {
      return await finish("failed", asError(error));
    }
    const open = journal.unfinishedCalls();
    if (open) {
      const ended = await settleStep({
        stepNumber: journal.stepCount,
        message: open.message,
        calls: open.calls,
        finishReason: null,
        usage: undefined,
        askedForTools: true,
      });
      if (ended) return ended;
    }
    for (let stepNumber = journal.stepCount + 1; ; stepNumber++) {
      if (signal.aborted) return await finish("aborted", runAbortedError(signal));
      const budgetSpent = budget && (await checkBudgetBeforeModelCall(budget, stepNumber));
      if (signal.aborted) return await finish("aborted", runAbortedError(signal));
      if (budgetSpent) return await finish("budget_exhausted", budgetSpent);
      emit({ type: "step-start", stepNumber });
      let completion: ModelResponse;
      let step: StepRequest;
      try {
        step = settings.prepareStep
          ? await prepareStepRequest(settings, { stepNumber, steps, messages })
          : stepRequest(settings, messages);
      } catch (error) {
        return await finish("failed", asError(error));
      }
      try {
        completion = await callModel({
          model: settings.model,
          request: step.request,
          mode: options.mode,
          signal,
          stepNumber,
          emit,
        });
      } catch (error) {
        if (signal.aborted) return await finish("aborted", runAbortedError(signal));
        return await finish("failed", asError(error));
      }
      const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
      if (!choice) {
        return await finish(
          "failed",
          new SwitchyardError("The model's answer had no choices; nothing to act on"),
        );
      }
      addUsage(journal.usage, completion.usage);
      const message = normalizeAssistantMessage(choice.message, stepNumber);
      messages.push(message);
      journal.stepCount = stepNumber;
      journal.openStep(message);
      const requested = requestedToolCalls(message);
      const { admitted, beyondBudget } = budget
        ? await admitToolCalls(requested, budget, stepNumber)
        : { admitted: requested, beyondBudget: noCalls };
      for (const toolCall of beyondBudget) {
        const { toolCallId, toolName, rawArguments } = toolCall;
        emit({ type: "tool-call", stepNumber, toolCallId, toolName, rawArguments });
        await journal.recordOutcome(toolCall);
        emit({ type: "tool-result", stepNumber, toolCall });
      }
      const ended = await settleStep({
        stepNumber,
        tools: step.tools,
        message,
        calls: admitted,
        beyondBudget,
        finishReason: choice.finish_reason ?? null,
        usage: completion.usage,
      });
      if (ended) return ended;
    }
  } catch (error) {
    return finish(
      signal.aborted ? "aborted" : "failed",
      signal.aborted ? runAbortedError(signal) : asError(error),
    );
  }
}

/** The calls beyond a budget when the run has none. */
const noCalls: readonly ToolCallRecord[] = Object.freeze([]);

/** Calls a user's callback; what it throws is logged, not the run's failure. */
async function callObserver(
  settings: AgentSettings,
  name: string,
  call: () => void | Promise<void>,
): Promise<void> {
  try {
    await call();
  } catch (error) {
    settings.logger.warn({ error: redactText(describeThrown(error)) }, `${name} threw; ignored`);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error
    ? error
    : new SwitchyardError(`The model call failed: ${String(error)}`, { cause: error });
}
