import type { AssistantModelMessage, ModelToolCall } from "./model-message.js";

/** The id the agent gives the single call of a legacy `function_call` answer. */
export const functionCallId = "function_call";

/**
 * The tool calls an assistant message asks for: its `tool_calls`, or its
 * legacy `function_call` as one call (id {@link functionCallId}), which the
 * agent runs like any other and answers with a `function` message.
 */
export function requestedToolCalls(message: AssistantModelMessage): ModelToolCall[] {
  if (message.tool_calls && message.tool_calls.length > 0) return message.tool_calls;
  const legacy = message.function_call;
  if (!legacy) return [];
  return [
    {
      id: functionCallId,
      type: "function",
      function: { name: legacy.name, arguments: legacy.arguments },
    },
  ];
}

/** True when the message's call is a legacy `function_call`, answered by a `function` message. */
export function asksLegacyFunctionCall(message: AssistantModelMessage): boolean {
  return (
    !(message.tool_calls && message.tool_calls.length > 0) && message.function_call !== undefined
  );
}
