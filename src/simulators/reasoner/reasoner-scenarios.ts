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
 * Picks a scenario from the first user message: callbacks or webhooks ->
 * callback-cleanup, a discount -> custom-tool, docs, a page or a site ->
 * docs-edit, orders with a summary or report -> order-report; anything else
 * gets a text answer listing what the simulator can play.
 */
function autoScenario(request: ReceivedChatRequest): ScriptedAnswer {
  const text = readConversation(request).firstUserText.toLowerCase();
  if (/callback|webhook/.test(text)) return callbackCleanupScenario(request);
  if (/discount/.test(text)) return customToolScenario(request);
  if (/\bdocs?\b|documentation|\bpages?\b|\bsite\b/.test(text)) return docsEditScenario(request);
  if (/\borders?\b/.test(text) && /summar|report/.test(text)) return orderReportScenario(request);
  return say(
    "I am the Switchyard reasoner simulator, a scripted model. I can play these tasks: " +
      "remove the callbacks that point at a host (mention callbacks and the host), " +
      "check a docs site and replace text on a page (name the project in double quotes, the page and 'replace X with Y'), " +
      "summarise orders by status, and give an order a percentage discount with an apply_discount tool.",
  );
}
