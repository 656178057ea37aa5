import type {
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  ChatToolDefinition,
} from "../clients/reasoner/chat-types.js";
import { SwitchyardError } from "../errors/switchyard-error.js";
import type { AgentEventSink } from "./agent-events.js";
import type { AgentSettings } from "./agent-options.js";
import { callModel, type ModelCallMode } from "./call-model.js";
import { executeToolCalls } from "./execute-tool-calls.js";
import { normalizeAssistantMessage } from "./normalize-assistant-message.js";
import {
  addUsage,
  emptyUsage,
  type RunResult,
  type RunStatus,
  type RunStep,
} from "./run-result.js";
import { decideStop, runAbortedError } from "./stop-conditions.js";

/** One run's inputs: the agent's settings and what this run was given. */
export interface RunLoopOptions {
  settings: AgentSettings;
  /** The starting conversation; the loop appends to it. */
  messages: ChatMessage[];
  maxSteps: number;
  signal: AbortSignal;
  mode: ModelCallMode;
  emit: AgentEventSink;
}

/**
 * The agent loop, shared by `run()` and `stream()`: call the model, run the
 * tools it asks for, append their results, until it answers without tools,
 * the step budget is spent, the signal fires or the model fails. Never
 * rejects; the last event emitted is always `finish`.
 */
export async function runLoop(options: RunLoopOptions): Promise<RunResult> {
  const { settings, messages, signal, emit } = options;
  const steps: RunStep[] = [];
  const usage = emptyUsage();
  const finish = (status: RunStatus, error?: Error): RunResult => {
    const output = steps.at(-1)?.message.content ?? "";
    const result: RunResult = {
      status,
      output,
      messages: [...messages],
      steps,
      usage,
      ...(error ? { error } : {}),
    };
    settings.logger.debug({ status, steps: steps.length, usage }, `run ${status}`);
    emit({ type: "finish", result });
    return result;
  };

  try {
    for (let stepNumber = 1; ; stepNumber++) {
      if (signal.aborted) return finish("aborted", runAbortedError(signal));
      let completion: ChatCompletion;
      try {
        completion = await callModel({
          model: settings.model,
          request: buildRequest(settings, messages),
          mode: options.mode,
          signal,
          stepNumber,
          emit,
        });
      } catch (error) {
        if (signal.aborted) return finish("aborted", runAbortedError(signal));
        return finish("failed", asError(error));
      }
      const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
      if (!choice) {
        return finish(
          "failed",
          new SwitchyardError("The model's answer had no choices; nothing to act on"),
        );
      }
      addUsage(usage, completion.usage);
      const message = normalizeAssistantMessage(choice.message, stepNumber);
      messages.push(message);
      const toolCalls = await executeToolCalls(message.tool_calls ?? [], {
        tools: settings.tools,
        approver: settings.approver,
        signal,
        logger: settings.logger,
        toolTimeoutMs: settings.toolTimeoutMs,
        toolConcurrency: settings.toolConcurrency,
        stepNumber,
        emit,
      });
      for (const record of toolCalls) {
        messages.push({ role: "tool", tool_call_id: record.toolCallId, content: record.content });
      }
      const step: RunStep = {
        stepNumber,
        message,
        finishReason: choice.finish_reason ?? null,
        usage: completion.usage,
        toolCalls,
      };
      steps.push(step);
      emit({ type: "step-finish", stepNumber, step });
      const stop = decideStop({
        signal,
        askedForTools: toolCalls.length > 0,
        stepNumber,
        maxSteps: options.maxSteps,
      });
      if (stop) return finish(stop.status, stop.error);
    }
  } catch (error) {
    return finish(
      signal.aborted ? "aborted" : "failed",
      signal.aborted ? runAbortedError(signal) : asError(error),
    );
  }
}

function buildRequest(settings: AgentSettings, messages: ChatMessage[]): ChatRequest {
  return {
    ...settings.requestOptions,
    messages: [...messages],
    ...(settings.toolDefinitions.length > 0
      ? { tools: settings.toolDefinitions as ChatToolDefinition[] }
      : {}),
  };
}

function asError(error: unknown): Error {
  return error instanceof Error
    ? error
    : new SwitchyardError(`The model call failed: ${String(error)}`, { cause: error });
}
