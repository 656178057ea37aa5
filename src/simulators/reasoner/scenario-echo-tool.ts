import { readConversation } from "./read-conversation.js";
import { callTool, say } from "./scenario-steps.js";
import type { ReceivedChatRequest, ScriptedAnswer } from "./scripted-answer.js";

/**
 * A two-step run for benchmarks: the first request calls the offered tool
 * the task names (or the first offered tool) with `{}`, any later request
 * answers "done". Without tools it answers "done" at once.
 */
export function echoToolScenario(request: ReceivedChatRequest): ScriptedAnswer {
  const { task, steps, offeredTools } = readConversation(request);
  if (steps.length > 0 || offeredTools.length === 0) return say("done");
  return callTool(namedOrFirstTool(task, offeredTools)!, {});
}

/** The offered tool whose name appears in the task as a word, else the first offered. */
export function namedOrFirstTool(
  task: string,
  offeredTools: readonly string[],
): string | undefined {
  const words = new Set(task.split(/[^\w-]+/));
  return offeredTools.find((name) => words.has(name)) ?? offeredTools[0];
}
