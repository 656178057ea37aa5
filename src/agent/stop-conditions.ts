import { ConfigurationError } from "../errors/configuration-error.js";
import { AbortedError } from "../errors/transport-errors.js";
import { MaxStepsExceededError } from "./errors.js";
import type { RunStatus, RunStep } from "./run-result.js";

/** Why the loop stops after a step, with the error the result carries. */
export interface StopDecision {
  status: Exclude<RunStatus, "failed">;
  error?: Error;
}

/**
 * Decides after a step whether the run ends: aborted when the signal fired,
 * completed when the model asked for no tool, max_steps when the budget is
 * spent. `undefined` means: call the model again.
 */
export function decideStop(state: {
  signal: AbortSignal;
  askedForTools: boolean;
  stepNumber: number;
  maxSteps: number;
}): StopDecision | undefined {
  if (!state.askedForTools) return { status: "completed" };
  if (state.signal.aborted) return { status: "aborted", error: runAbortedError(state.signal) };
  if (state.stepNumber >= state.maxSteps) {
    return { status: "max_steps", error: new MaxStepsExceededError(state.maxSteps) };
  }
  return undefined;
}

/** The error of an aborted run; the signal's reason is its cause. */
export function runAbortedError(signal: AbortSignal): AbortedError {
  return new AbortedError("The run was aborted by the caller", { cause: signal.reason });
}

/** What a stop condition is shown after a step whose tool calls have settled. */
export interface StopConditionContext {
  /** The steps of this `run()` or `resume()` so far, the step just settled last. */
  steps: readonly RunStep[];
}

/**
 * Decides, after a step whose tool calls have settled, whether the run ends
 * there (status `completed`) instead of calling the model again.
 *
 * `ToolName` is the tools it names (`hasToolCall`'s), so giving it to an
 * agent without such a tool is a type error; a condition naming no tool
 * (`never`, the default) fits every agent.
 */
export type StopCondition<ToolName extends string = never> = ((
  context: StopConditionContext,
) => boolean | Promise<boolean>) & {
  /** The tools the condition watches, when it names any (`hasToolCall`). */
  readonly toolNames?: readonly ToolName[];
};

/**
 * One condition, or several of which any may hold, for an agent whose tools
 * are named `ToolName`: a condition naming another tool does not fit.
 */
export type StopWhen<ToolName extends string = string> =
  | StopCondition<ToolName>
  | readonly StopCondition<ToolName>[];

/**
 * Holds once the run has made `count` model calls (counted over the whole
 * run, a resumed one included).
 *
 * @example
 * new Agent({ model, tools, stopWhen: stepCountIs(3) });
 */
export function stepCountIs(count: number): StopCondition {
  if (!Number.isInteger(count) || count < 1) {
    throw new ConfigurationError(
      `stepCountIs() takes a positive integer; got ${JSON.stringify(count) ?? String(count)}.`,
    );
  }
  return ({ steps }) => (steps.at(-1)?.stepNumber ?? 0) >= count;
}

/**
 * Holds when the last step ran one of these tools successfully (a call that
 * was refused, invalid or failed does not count: the model may try again).
 * Typed by the names: given to an agent (or a run) that has no tool of one
 * of these names, it is a type error.
 *
 * @example
 * // End as soon as the model has filed its report; no summary turn after it.
 * new Agent({ model, tools: [fileReport, ...], stopWhen: hasToolCall("file_report") });
 */
export function hasToolCall<ToolName extends string>(
  ...toolNames: ToolName[]
): StopCondition<ToolName> {
  if (toolNames.length === 0 || toolNames.some((name) => typeof name !== "string")) {
    throw new ConfigurationError("hasToolCall() takes one or more tool names.");
  }
  const names = new Set<string>(toolNames);
  const condition: StopCondition = ({ steps }) =>
    steps
      .at(-1)
      ?.toolCalls.some((call) => call.status === "succeeded" && names.has(call.toolName)) ?? false;
  return Object.assign(condition, { toolNames: Object.freeze([...toolNames]) });
}

/** The conditions of a `stopWhen` option, or a problem when it is not one. */
export function readStopWhen(
  stopWhen: unknown,
  problems: string[],
  label = "stopWhen",
): readonly StopCondition<string>[] {
  if (stopWhen === undefined) return [];
  const conditions = Array.isArray(stopWhen) ? stopWhen : [stopWhen];
  if (conditions.some((condition) => typeof condition !== "function")) {
    problems.push(
      `${label} must be a stop condition (e.g. stepCountIs(3), hasToolCall("file_report")) or an array of them.`,
    );
    return [];
  }
  return conditions as StopCondition<string>[];
}

/** True when any condition holds after the steps so far. */
export async function anyStopConditionHolds(
  conditions: readonly StopCondition<string>[],
  steps: readonly RunStep[],
): Promise<boolean> {
  for (const condition of conditions) {
    if (await condition({ steps })) return true;
  }
  return false;
}
