import { readConversation } from "./read-conversation.js";
import { callbackCleanupScenario } from "./scenario-callback-cleanup.js";
import { customToolScenario } from "./scenario-custom-tool.js";
import { docsEditScenario } from "./scenario-docs-edit.js";
import { echoToolScenario } from "./scenario-echo-tool.js";
import { longStreamScenario } from "./scenario-long-stream.js";
import { orderReportScenario } from "./scenario-order-report.js";
import { say } from "./scenario-steps.js";
import type { ReceivedChatRequest, ScenarioFunction, ScriptedAnswer } from "./scripted-answer.js";

/** Names of the built-in scripted models. */
export type ReasonerScenarioName =
  | "auto"
  | "callback-cleanup"
  | "docs-edit"
  | "order-report"
  | "custom-tool"
  | "echo-tool"
  | "long-stream";

/**
 * The built-in scripted models, by name, for composing your own scenario
 * (for example: handle one task yourself and hand the rest to `auto`).
 */
export const reasonerScenarios: Readonly<Record<ReasonerScenarioName, ScenarioFunction>> = {
  auto: autoScenario,
  "callback-cleanup": callbackCleanupScenario,
  "docs-edit": docsEditScenario,
  "order-report": orderReportScenario,
  "custom-tool": customToolScenario,
  "echo-tool": echoToolScenario,
  "long-stream": longStreamScenario,
};

/**
 * Plays a conversation: picks a scenario from the latest user message, so
 * each turn of a chat is its own task: callbacks or webhooks ->
 * callback-cleanup, a discount -> custom-tool, docs, a page or a site ->
 * docs-edit, orders with a summary or report -> order-report. Small talk
 * (a greeting, thanks, goodbye, what it can do, what was asked before) gets
 * a short answer; anything else a text answer listing what the simulator
 * can play.
 */
function autoScenario(request: ReceivedChatRequest): ScriptedAnswer {
  const conversation = readConversation(request);
  const text = conversation.task.toLowerCase();
  if (/callback|webhook/.test(text)) return callbackCleanupScenario(request);
  if (/discount/.test(text)) return customToolScenario(request);
  if (/\bdocs?\b|documentation|\bpages?\b|\bsite\b/.test(text)) return docsEditScenario(request);
  if (/\borders?\b/.test(text) && /summar|report/.test(text)) return orderReportScenario(request);
  return smallTalk(text, conversation.userTexts) ?? say(capabilities);
}

const capabilities =
  "I am the Switchyard reasoner simulator, a scripted model. I can play these tasks: " +
  "remove the callbacks that point at a host (mention callbacks and the host), " +
  "check a docs site and replace text on a page (name the project in double quotes, the page and 'replace X with Y'), " +
  "summarise orders by status, and give an order a percentage discount with an apply_discount tool.";

/** A short answer to a greeting, thanks, goodbye or a question about the conversation; none for a task. */
function smallTalk(text: string, userTexts: readonly string[]): ScriptedAnswer | undefined {
  const words = text.trim();
  if (/^(hi|hello|hey|good (morning|afternoon|evening))\b/.test(words)) {
    return say(
      userTexts.length > 1
        ? "Hello again! What should I do next?"
        : "Hello! I am the Switchyard reasoner simulator, a scripted model: I can remove the callbacks that point at a host, edit a docs page, summarise orders or give an order a discount. What should I do?",
    );
  }
  if (/\b(thanks|thank you|cheers)\b/.test(words)) return say("You are welcome.");
  if (/^(bye|goodbye|see you)\b/.test(words)) return say("Goodbye!");
  if (/what can you do|who are you|\bhelp\b/.test(words)) return say(capabilities);
  if (/what did i (ask|say)|earlier|before/.test(words)) {
    const earlier = userTexts.slice(0, -1);
    return say(
      earlier.length === 0
        ? "This is the first thing you asked me in this conversation."
        : `Earlier you asked: ${earlier.map((asked) => JSON.stringify(asked)).join(", then ")}.`,
    );
  }
  return undefined;
}
