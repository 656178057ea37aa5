import type { ToolStep } from "./read-conversation.js";
import type { ScriptedAnswer } from "./scripted-answer.js";

/** An answer that calls one tool. */
export function callTool(name: string, args: unknown, reasoning?: string): ScriptedAnswer {
  const answer: ScriptedAnswer = { text: null, toolCalls: [{ name, arguments: args }] };
  if (reasoning !== undefined) answer.reasoning = reasoning;
  return answer;
}

/** A final text answer. */
export function say(text: string, reasoning?: string): ScriptedAnswer {
  return reasoning === undefined ? { text } : { text, reasoning };
}

/** The text answer a model gives when the tool it needs is not offered. */
export function missingTool(name: string, purpose: string): ScriptedAnswer {
  return say(
    `I cannot ${purpose}: this request offers no "${name}" tool. Add the tool set that provides ${name} and ask again.`,
  );
}

/** The last step with this tool name, if any. */
export function lastStepOf(steps: readonly ToolStep[], name: string): ToolStep | undefined {
  for (let index = steps.length - 1; index >= 0; index--) {
    if (steps[index]!.name === name) return steps[index];
  }
  return undefined;
}

/** How many results of this tool were errors (of this code, when given). */
export function countErrors(steps: readonly ToolStep[], name: string, code?: string): number {
  return steps.filter(
    (step) => step.name === name && step.error !== undefined && (!code || step.error === code),
  ).length;
}

/** One sentence naming the error of a failed tool result, with its message and reason. */
export function describeToolError(step: ToolStep): string {
  const result = step.result as { message?: unknown; reason?: unknown; code?: unknown };
  const parts = [`${step.name} returned ${step.error}`];
  if (typeof result.message === "string" && result.message !== "") parts.push(result.message);
  let text = parts.join(": ");
  if (typeof result.reason === "string" && result.reason !== "") {
    text += ` (reason: ${result.reason})`;
  }
  return text.endsWith(".") ? text : `${text}.`;
}

/** The approval refusal reason, or the message when no reason was given. */
export function refusalReason(step: ToolStep): string {
  const result = step.result as { message?: unknown; reason?: unknown };
  if (typeof result.reason === "string" && result.reason !== "") return result.reason;
  if (typeof result.message === "string" && result.message !== "") return result.message;
  return "no reason was given";
}

/**
 * How a careful model reacts to a failed read-only call: once more after a
 * failure or timeout, once with `fixedArguments` after invalid arguments,
 * otherwise it stops and explains, ending with `afterwards`. Never loops:
 * each retry kind happens once.
 */
export function retryReadOrGiveUp(
  steps: readonly ToolStep[],
  failed: ToolStep,
  purpose: string,
  fixedArguments: unknown,
  afterwards = "Nothing was changed.",
): ScriptedAnswer {
  const name = failed.name;
  const transient = failed.error === "tool_failed" || failed.error === "tool_timeout";
  if (
    transient &&
    countErrors(steps, name, "tool_failed") + countErrors(steps, name, "tool_timeout") < 2
  ) {
    return callTool(name, failed.arguments ?? {}, `${name} failed once; trying again.`);
  }
  if (failed.error === "invalid_arguments" && countErrors(steps, name, "invalid_arguments") < 2) {
    return callTool(
      name,
      fixedArguments,
      `${name} rejected its arguments; retrying with simpler ones.`,
    );
  }
  return say(`I could not ${purpose}. ${describeToolError(failed)} I stopped here. ${afterwards}`);
}
