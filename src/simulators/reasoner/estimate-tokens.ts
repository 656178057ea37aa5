import type { ReceivedChatRequest } from "./scripted-answer.js";

/** A rough token count: about four characters a token, at least one for any text. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

/** Rough prompt tokens: message texts, tool-call arguments and tool definitions. */
export function estimatePromptTokens(request: ReceivedChatRequest): number {
  let characters = 0;
  for (const message of request.messages) {
    characters += (message.content ?? "").length + 4;
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        characters += call.function.name.length + call.function.arguments.length;
      }
    }
  }
  if (request.tools) characters += JSON.stringify(request.tools).length;
  return Math.max(1, Math.ceil(characters / 4));
}
