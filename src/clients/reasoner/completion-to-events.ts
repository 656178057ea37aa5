import type { ChatCompletion, ChatStreamEvent } from "./chat-types.js";

/**
 * The events a stream of `completion` would have given, for a service that
 * answered a streamed request with one JSON `chat.completion`: each choice's
 * reasoning, text and tool calls whole, then its `finish` (usage on the last).
 */
export function completionToEvents(completion: ChatCompletion): ChatStreamEvent[] {
  const events: ChatStreamEvent[] = [];
  for (const choice of completion.choices) {
    const { message, index: choiceIndex } = choice;
    if (message.reasoning) {
      events.push({ type: "reasoning-delta", choiceIndex, delta: message.reasoning });
    }
    if (message.content) events.push({ type: "text-delta", choiceIndex, delta: message.content });
    message.tool_calls?.forEach((call, toolCallIndex) => {
      events.push({
        type: "tool-call-delta",
        choiceIndex,
        toolCallIndex,
        id: call.id,
        name: call.function.name,
        argumentsDelta: call.function.arguments,
      });
    });
  }
  completion.choices.forEach((choice, position) => {
    events.push({
      type: "finish",
      choiceIndex: choice.index,
      finishReason: choice.finish_reason ?? "stop",
      usage: position === completion.choices.length - 1 ? completion.usage : undefined,
    });
  });
  return events;
}
