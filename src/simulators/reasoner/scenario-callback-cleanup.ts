import { readConversation, type ToolStep } from "./read-conversation.js";
import {
  callTool,
  countErrors,
  describeToolError,
  lastStepOf,
  missingTool,
  refusalReason,
  retryReadOrGiveUp,
  say,
} from "./scenario-steps.js";
import type { ReceivedChatRequest, ScriptedAnswer } from "./scripted-answer.js";

interface ListedCallback {
  id: string;
  url: string;
}

interface DeleteOutcome {
  deletedIds: string[];
  deletedCount: number;
  failures: Array<{ id: string; message: string }>;
}

// A host starts where a run of host characters starts: starting inside one
// rescans `a-a-a…` once per label.
const hostPattern =
  /(?<![a-z0-9.-])((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9])\b/i;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// list_callbacks shows at most 50; with more, the model deletes and lists again, a bounded number of times.
const maximumDeleteRounds = 20;

/**
 * Plays a model removing the callbacks whose URL points at the host the task
 * names (the first hostname-looking token of the last user message):
 * list_callbacks, then delete_callbacks with the matching ids, then a report.
 * When the list is trimmed (`omitted` > 0) it lists again after each
 * deletion, then per message type when the tool's schema names the types.
 */
export function callbackCleanupScenario(request: ReceivedChatRequest): ScriptedAnswer {
  const { task, steps, offeredTools } = readConversation(request);
  const host = hostPattern.exec(task)?.[1]?.toLowerCase();
  if (!host) {
    return say(
      "Which host should I clean up? Name it in the task (for example hooks.old-warehouse.example) and I will remove the callbacks whose URL points at it.",
    );
  }
  const last = steps.at(-1);
  if (!last || (last.name !== "list_callbacks" && last.name !== "delete_callbacks")) {
    if (!offeredTools.includes("list_callbacks")) {
      return missingTool("list_callbacks", "see the callbacks");
    }
    return callTool(
      "list_callbacks",
      { message_type: "all" },
      `The task names ${host}; listing callbacks.`,
    );
  }
  if (last.name === "delete_callbacks") return afterDelete(host, steps, last, request);
  if (last.error) {
    const afterwards = deletedSoFar(host, steps) || "Nothing was deleted.";
    return retryReadOrGiveUp(steps, last, "list the callbacks", {}, afterwards);
  }
  const attempted = new Set(steps.flatMap(attemptedIds));
  const matches = listedCallbacks(last.result).filter(
    (callback) => pointsAt(callback.url, host) && !attempted.has(callback.id),
  );
  if (matches.length === 0) return nextRound(host, steps, request);
  if (!offeredTools.includes("delete_callbacks")) {
    const urls = matches.map((callback) => callback.url).join(", ");
    return missingTool(
      "delete_callbacks",
      `delete the ${matches.length} callbacks on ${host} (${urls})`,
    );
  }
  return callTool(
    "delete_callbacks",
    { callback_ids: matches.slice(0, 1000).map((callback) => callback.id) },
    `${matches.length} callbacks point at ${host}; deleting them.`,
  );
}

function afterDelete(
  host: string,
  steps: ToolStep[],
  last: ToolStep,
  request: ReceivedChatRequest,
): ScriptedAnswer {
  const requested = attemptedIds(last);
  const earlier = deletedSoFar(host, steps);
  const lead = earlier ? `${earlier} ` : "";
  if (last.error === "approval_refused") {
    return say(
      `${lead}Nothing ${earlier ? "more " : ""}was deleted: deleting the ${requested.length} callbacks that point at ${host} was refused (reason: ${refusalReason(last)}).`,
    );
  }
  if (
    last.error === "invalid_arguments" &&
    countErrors(steps, "delete_callbacks", "invalid_arguments") < 2
  ) {
    const valid = requested.filter((id) => uuidPattern.test(id));
    if (valid.length > 0 && valid.length < requested.length) {
      return callTool(
        "delete_callbacks",
        { callback_ids: valid },
        "Some ids were not UUIDs; retrying with the valid ones.",
      );
    }
  }
  if (last.error) {
    // A delete may have had an effect before it failed, so it is not retried blindly.
    return say(
      `${lead}${describeToolError(last)} I did not retry the deletion; list the callbacks to see what is left before trying again.`,
    );
  }
  return nextRound(host, steps, request);
}

/**
 * After a list with nothing (more) to delete, or after a deletion: list the
 * same type again while a trimmed list keeps shrinking, else the next
 * message type when something was hidden, else the report.
 */
function nextRound(host: string, steps: ToolStep[], request: ReceivedChatRequest): ScriptedAnswer {
  const list = lastStepOf(steps, "list_callbacks")!;
  const type = String(
    (list.arguments as { message_type?: unknown } | undefined)?.message_type ?? "all",
  );
  const last = steps.at(-1)!;
  const progressed = last.name === "delete_callbacks" && deleteOutcome(last).deletedCount > 0;
  const rounds = steps.filter((step) => step.name === "delete_callbacks").length;
  if (omittedBy(list) > 0 && progressed && rounds < maximumDeleteRounds) {
    return callTool(
      "list_callbacks",
      { message_type: type },
      "The list was trimmed; listing again.",
    );
  }
  const hidden = steps.some((step) => step.name === "list_callbacks" && omittedBy(step) > 0);
  if (hidden) {
    const types = messageTypes(request);
    const next = types[types.indexOf(type) + 1];
    if (next) {
      return callTool(
        "list_callbacks",
        { message_type: next },
        `Some callbacks were hidden; listing ${next}.`,
      );
    }
  }
  return say(report(host, steps));
}

/** The final report: what was deleted, or that nothing points at the host. */
function report(host: string, steps: ToolStep[]): string {
  const done = deletedSoFar(host, steps);
  const edited = steps.some((step) => step.name === "delete_callbacks" && step.askedArguments);
  // Told plainly by the agent: what ran is the person's change, not what was asked for.
  const changed = edited ? "The person changed the deletion before approving it. " : "";
  if (done) return `${changed}${done} All other callbacks were left alone.`;
  const checked = new Set<string>();
  for (const step of steps) {
    if (step.name === "list_callbacks" && !step.error) {
      for (const callback of listedCallbacks(step.result)) checked.add(callback.id);
    }
  }
  const lastList = lastStepOf(steps, "list_callbacks");
  const omitted = lastList ? omittedBy(lastList) : 0;
  const note =
    omitted > 0 ? ` ${omitted} more were not shown because the list is trimmed to 50.` : "";
  return `No callback points at ${host}; nothing was deleted. I checked ${checked.size} callbacks.${note}`;
}

/** What the successful deletions of this conversation did; empty when there were none. */
function deletedSoFar(host: string, steps: ToolStep[]): string {
  const urls = new Map<string, string>();
  for (const step of steps) {
    if (step.name === "list_callbacks" && !step.error) {
      for (const callback of listedCallbacks(step.result)) urls.set(callback.id, callback.url);
    }
  }
  const outcomes = steps
    .filter((step) => step.name === "delete_callbacks" && !step.error)
    .map(deleteOutcome);
  if (outcomes.length === 0) return "";
  const deleted = outcomes.reduce((sum, outcome) => sum + outcome.deletedCount, 0);
  const shown = outcomes.flatMap((outcome) => outcome.deletedIds).map((id) => urls.get(id) ?? id);
  const failures = outcomes.flatMap((outcome) => outcome.failures);
  let text = `Deleted ${deleted} callback${deleted === 1 ? "" : "s"} that pointed at ${host}`;
  text += shown.length > 0 ? `: ${shown.join(", ")}.` : ".";
  text += ` ${failures.length} failed`;
  text +=
    failures.length > 0
      ? `: ${failures.map((failure) => `${urls.get(failure.id) ?? failure.id} (${failure.message})`).join("; ")}.`
      : ".";
  return text;
}

function deleteOutcome(step: ToolStep): DeleteOutcome {
  const result = step.result as { deleted?: unknown; results?: unknown };
  const results = Array.isArray(result.results)
    ? (result.results as Array<Record<string, unknown>>)
    : [];
  const deletedIds = results
    .filter((entry) => entry.status === "success" && typeof entry.id === "string")
    .map((entry) => entry.id as string);
  const failures = results
    .filter((entry) => entry.status !== "success")
    .map((entry) => ({
      id: String(entry.id),
      message: typeof entry.error_message === "string" ? entry.error_message : "no reason given",
    }));
  const deletedCount = typeof result.deleted === "number" ? result.deleted : deletedIds.length;
  return { deletedIds, deletedCount, failures };
}

function attemptedIds(step: ToolStep): string[] {
  if (step.name !== "delete_callbacks") return [];
  const ids = (step.arguments as { callback_ids?: unknown } | undefined)?.callback_ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

function listedCallbacks(result: unknown): ListedCallback[] {
  const list = Array.isArray(result) ? result : (result as { callbacks?: unknown }).callbacks;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (item): item is ListedCallback =>
      typeof item === "object" &&
      item !== null &&
      typeof item.id === "string" &&
      typeof item.url === "string",
  );
}

function omittedBy(step: ToolStep): number {
  if (step.error) return 0;
  const omitted = Number((step.result as { omitted?: unknown }).omitted ?? 0);
  return Number.isFinite(omitted) ? omitted : 0;
}

/** The message types the offered list_callbacks schema names, without "all". */
function messageTypes(request: ReceivedChatRequest): string[] {
  const tool = request.tools?.find((candidate) => candidate.function.name === "list_callbacks");
  const properties = tool?.function.parameters.properties as
    | Record<string, { enum?: unknown }>
    | undefined;
  const values = properties?.message_type?.enum;
  return Array.isArray(values)
    ? values.filter((value): value is string => typeof value === "string" && value !== "all")
    : [];
}

function pointsAt(url: string, host: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return false;
  }
  return hostname === host || hostname.endsWith(`.${host}`);
}
