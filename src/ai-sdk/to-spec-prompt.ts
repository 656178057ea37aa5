import type {
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolCallPart,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import type { AssistantModelMessage, ModelMessage } from "../agent/model-message.js";

/**
 * The conversation in the specification's prompt form: system text,
 * user text, assistant text, reasoning and tool calls (arguments parsed
 * back from their JSON text), and tool results as text. Consecutive tool
 * and function results become one tool message, as the specification
 * groups the results of one step. A legacy `function_call` becomes a tool
 * call with an id of its own, which the `function` message answering it
 * by name is given back.
 */
export function toSpecPrompt(messages: readonly ModelMessage[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  const toolNames = new Map<string, string>();
  const openFunctionCalls = new Map<string, string>();
  let results: LanguageModelV3ToolResultPart[] | undefined;
  messages.forEach((message, position) => {
    if (message.role !== "tool" && message.role !== "function") results = undefined;
    if (message.role === "system") {
      prompt.push({ role: "system", content: message.content });
    } else if (message.role === "user") {
      prompt.push({ role: "user", content: [{ type: "text", text: message.content }] });
    } else if (message.role === "assistant") {
      prompt.push(toAssistantMessage(message, position, toolNames, openFunctionCalls));
    } else {
      const toolCallId =
        message.role === "tool"
          ? message.tool_call_id
          : (openFunctionCalls.get(message.name) ?? functionCallId(position));
      if (message.role === "function") openFunctionCalls.delete(message.name);
      const toolName =
        message.role === "tool" ? (toolNames.get(toolCallId) ?? "unknown") : message.name;
      const part: LanguageModelV3ToolResultPart = {
        type: "tool-result",
        toolCallId,
        toolName,
        output: { type: "text", value: message.content ?? "" },
      };
      if (results) {
        results.push(part);
      } else {
        results = [part];
        prompt.push({ role: "tool", content: results });
      }
    }
  });
  return prompt;
}

function toAssistantMessage(
  message: AssistantModelMessage,
  position: number,
  toolNames: Map<string, string>,
  openFunctionCalls: Map<string, string>,
): LanguageModelV3Message {
  const content: Extract<LanguageModelV3Message, { role: "assistant" }>["content"] = [];
  if (message.reasoning) content.push({ type: "reasoning", text: message.reasoning });
  if (message.content) content.push({ type: "text", text: message.content });
  for (const call of message.tool_calls ?? []) {
    toolNames.set(call.id, call.function.name);
    content.push(toolCallPart(call.id, call.function.name, call.function.arguments));
  }
  if (message.function_call) {
    const id = functionCallId(position);
    openFunctionCalls.set(message.function_call.name, id);
    content.push(toolCallPart(id, message.function_call.name, message.function_call.arguments));
  }
  return { role: "assistant", content };
}

function toolCallPart(
  toolCallId: string,
  toolName: string,
  argumentText: string,
): LanguageModelV3ToolCallPart {
  return { type: "tool-call", toolCallId, toolName, input: parseArguments(argumentText) };
}

/**
 * The arguments as the value the specification carries. Text that is not
 * JSON (a model's malformed call, answered with an error) is passed as the
 * string it was, so the conversation stays whole.
 */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text === "" ? "{}" : text);
  } catch {
    return text;
  }
}

function functionCallId(position: number): string {
  return `function_call_${position}`;
}
