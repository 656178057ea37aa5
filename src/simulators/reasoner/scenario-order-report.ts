import { readConversation, type ToolStep } from "./read-conversation.js";
import { callTool, missingTool, retryReadOrGiveUp, say } from "./scenario-steps.js";
import type { ReceivedChatRequest, ScriptedAnswer } from "./scripted-answer.js";

const pageSize = 100;
// A service whose next_offset never ends would otherwise page forever.
const maximumPages = 1000;

/**
 * Plays a model summarising orders: list_orders page by page (limit 100,
 * following next_offset until it is null), then the total and the count per
 * value of the field the task groups by ("by status" by default).
 */
export function orderReportScenario(request: ReceivedChatRequest): ScriptedAnswer {
  const { task, steps, offeredTools } = readConversation(request);
  if (!offeredTools.includes("list_orders")) return missingTool("list_orders", "read the orders");
  const field = groupField(task);
  const page = (offset: number) => ({ limit: pageSize, offset, list_type: "summary" });
  const pages = steps.filter((step) => step.name === "list_orders");
  const last = pages.at(-1);
  if (!last) return callTool("list_orders", page(0), "Reading the first page of orders.");
  if (last.error) {
    const offset = Number((last.arguments as { offset?: unknown } | undefined)?.offset ?? 0);
    const counted = report(pages, field);
    return retryReadOrGiveUp(
      steps,
      last,
      `read all orders (page at offset ${offset})`,
      { offset },
      `Counted before the failure: ${counted}`,
    );
  }
  const current = Number((last.result as { offset?: unknown }).offset ?? 0);
  const next = (last.result as { next_offset?: unknown }).next_offset;
  if (typeof next === "number" && next > current && pages.length < maximumPages) {
    return callTool("list_orders", page(next), `More orders from offset ${next}.`);
  }
  return say(report(pages, field));
}

function groupField(task: string): string {
  const named = /\bby\s+([a-z_][\w-]*)/i.exec(task)?.[1]?.toLowerCase();
  return named && !["the", "a", "an", "each", "their", "its"].includes(named) ? named : "status";
}

function report(pages: ToolStep[], field: string): string {
  // A page fetched twice (after a retry) counts once.
  const byOffset = new Map<number, unknown[]>();
  for (const page of pages) {
    if (page.error) continue;
    const result = page.result as { items?: unknown; offset?: unknown };
    const offset = Number(result.offset ?? (page.arguments as { offset?: unknown })?.offset ?? 0);
    byOffset.set(offset, Array.isArray(result.items) ? result.items : []);
  }
  const counts = new Map<string, number>();
  let total = 0;
  for (const items of byOffset.values()) {
    for (const item of items) {
      total++;
      const raw = (item as Record<string, unknown> | null)?.[field];
      const value = raw === undefined || raw === null || raw === "" ? "unknown" : String(raw);
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
  }
  if (total === 0) return "There are no orders.";
  const parts = [...counts.entries()]
    .sort((left, right) => right[1] - left[1] || left[0].localeCompare(right[0]))
    .map(([value, count]) => `${value}: ${count}`);
  return `There ${total === 1 ? "is 1 order" : `are ${total} orders`} in total. By ${field}: ${parts.join(", ")}.`;
}
