import { readConversation } from "./read-conversation.js";
import {
  callTool,
  describeToolError,
  lastStepOf,
  missingTool,
  refusalReason,
  say,
} from "./scenario-steps.js";
import type { ReceivedChatRequest, ScriptedAnswer } from "./scripted-answer.js";

/**
 * Plays a model using an application's own tool: apply_discount (or the
 * first offered tool whose name mentions "discount") with the order id,
 * percentage and reason read from the task, then says whether the discount
 * was applied, refused or failed. It never changes the requested percentage
 * on its own, so rejected arguments end the run with an explanation.
 */
export function customToolScenario(request: ReceivedChatRequest): ScriptedAnswer {
  const { task, steps, offeredTools } = readConversation(request);
  const tool = offeredTools.includes("apply_discount")
    ? "apply_discount"
    : offeredTools.find((name) => name.toLowerCase().includes("discount"));
  if (!tool) return missingTool("apply_discount", "apply a discount");
  const order =
    /\b([A-Z]{2,}[-_]?\d+)\b/.exec(task)?.[1] ?? /\border\s+#?([\w-]*\d[\w-]*)/i.exec(task)?.[1];
  const percentText = /(?<!\d)(\d+(?:\.\d+)?)\s*(?:%|percent\b)/i.exec(task)?.[1];
  if (!order || !percentText) {
    const missing = [order ? "" : "the order id", percentText ? "" : "the percentage"];
    return say(
      `I need ${missing.filter(Boolean).join(" and ")} to apply a discount, for example: give order ORD-1042 a 15% discount because it shipped late.`,
    );
  }
  const percent = Number(percentText);
  const because = /\bbecause\s+(\S[\s\S]*)/i.exec(task)?.[1]?.trimEnd();
  const reason = because?.replace(/[.!]$/, "").trim() || "goodwill";
  const step = lastStepOf(steps, tool);
  if (!step) {
    return callTool(
      tool,
      { customer_identifier: order, percent, reason },
      `The task asks for ${percent}% off ${order}.`,
    );
  }
  const discount = `the ${percent}% discount on ${order}`;
  if (step.error === "approval_refused") {
    return say(
      `I did not apply ${discount}: it was refused (reason: ${refusalReason(step)}). Nothing was changed.`,
    );
  }
  if (step.error === "invalid_arguments") {
    return say(
      `I did not apply ${discount}: ${describeToolError(step)} I will not change the amount you asked for on my own; ask again with values the tool accepts.`,
    );
  }
  if (step.error) {
    return say(
      `Applying ${discount} failed: ${describeToolError(step)} I did not retry, because it may have been applied; check the order before trying again.`,
    );
  }
  return say(`Applied ${discount} (reason: ${reason}).`);
}
