import type { AssistantModelMessage, ModelToolCall } from "./model-message.js";

/**
 * The model's message made safe to act on and to send back: `content` a
 * string or null, every tool call with an id (unique within the message: a
 * repeated id is replaced, since each tool message answers one id), a name
 * and string arguments (objects some providers send are re-encoded),
 * `tool_calls` absent when empty. A legacy `function_call` is kept, made
 * the same way, when there are no tool calls.
 */
export function normalizeAssistantMessage(
  message: unknown,
  stepNumber: number,
): AssistantModelMessage {
  const source = (
    typeof message === "object" && message !== null ? message : {}
  ) as Partial<AssistantModelMessage>;
  const { tool_calls: rawCalls, function_call: rawLegacy, ...rest } = source;
  const normalized: AssistantModelMessage = {
    ...rest,
    role: "assistant",
    content: typeof source.content === "string" ? source.content : null,
  };
  const calls = Array.isArray(rawCalls)
    ? rawCalls.map((call, index) => normalizeCall(call, stepNumber, index))
    : [];
  if (calls.length > 1) makeIdsUnique(calls, stepNumber);
  if (calls.length > 0) normalized.tool_calls = calls;
  // A legacy answer's single call; with tool calls beside it, those win.
  else if (typeof rawLegacy === "object" && rawLegacy !== null) {
    normalized.function_call = normalizeCall({ function: rawLegacy }, stepNumber, 0).function;
  }
  return normalized;
}

function makeIdsUnique(calls: ModelToolCall[], stepNumber: number): void {
  const seen = new Set<string>();
  for (const [index, call] of calls.entries()) {
    let id = call.id;
    for (let attempt = 1; seen.has(id); attempt++) {
      id = `call_${stepNumber}_${index}${attempt > 1 ? `_${attempt}` : ""}`;
    }
    call.id = id;
    seen.add(id);
  }
}

function normalizeCall(call: unknown, stepNumber: number, index: number): ModelToolCall {
  const source = (typeof call === "object" && call !== null ? call : {}) as Partial<ModelToolCall>;
  const { name, arguments: args } = (source.function ?? {}) as {
    name?: unknown;
    arguments?: unknown;
  };
  return {
    id:
      typeof source.id === "string" && source.id !== "" ? source.id : `call_${stepNumber}_${index}`,
    type: "function",
    function: {
      name: typeof name === "string" ? name : "",
      arguments: typeof args === "string" ? args : args === undefined ? "" : JSON.stringify(args),
    },
  };
}
