import type { ChatCompletion } from "../../clients/reasoner/chat-types.js";
import { answerUsage, type CompletionHeader } from "./completion-parts.js";
import type { ReceivedChatRequest } from "./scripted-answer.js";
import type { ShapedAnswer } from "./shape-answer.js";
import type { StreamStyle } from "./stream-style.js";

/** The standard non-streaming `chat.completion` object, one choice per answer. */
export function buildCompletion(
  header: CompletionHeader,
  request: ReceivedChatRequest,
  answers: readonly ShapedAnswer[],
  style: StreamStyle,
): ChatCompletion {
  return {
    id: header.id,
    object: "chat.completion",
    created: header.created,
    model: header.model,
    provider: header.provider,
    system_fingerprint: "switchyard-simulator",
    choices: answers.map((answer, index) => {
      const message: Record<string, unknown> = { role: "assistant", content: answer.content };
      const [legacyCall] = answer.legacyFunctionCall ? answer.toolCalls : [];
      if (legacyCall) {
        message.function_call = { name: legacyCall.name, arguments: legacyCall.argumentText };
      } else if (answer.toolCalls.length > 0) {
        message.tool_calls = answer.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.argumentText },
        }));
      }
      if (style.reasoningField && answer.reasoning)
        message[style.reasoningField] = answer.reasoning;
      return {
        index,
        message: message as unknown as ChatCompletion["choices"][number]["message"],
        logprobs: null,
        finish_reason: answer.finishReason,
      };
    }),
    usage: answerUsage(request, answers),
  };
}
