import { SwitchyardError } from "../../errors/switchyard-error.js";
import type {
  ChatAssistantMessage,
  ChatChoice,
  ChatCompletion,
  ChatToolCall,
} from "./chat-types.js";
import { generateToolCallId } from "./generate-tool-call-id.js";
import { findUsage } from "./normalize-usage.js";
import { readContentParts } from "./read-content-parts.js";
import { isPlainObject } from "./validation-checks.js";

/** Where an answer came from, for error messages; `snippet` shows its body safely. */
export interface AnswerSource {
  method: string;
  url: string;
  snippet(): string;
}

/**
 * Checks a non-streaming answer loosely (an object whose `choices` each hold
 * a `message`) and normalizes what providers vary in: a missing `content`
 * becomes null, `reasoning_content` is also offered as `reasoning`, a tool
 * call without a usable id gets one. Unknown fields are kept. A malformed
 * answer throws a SwitchyardError saying what is missing.
 */
export function parseChatCompletion(value: unknown, source: AnswerSource): ChatCompletion {
  if (!isPlainObject(value)) throw malformed(source, "is not a chat.completion object");
  if (!Array.isArray(value.choices)) throw malformed(source, "has no choices array");
  const choices = value.choices.map((choice, position) => parseChoice(choice, position, source));
  const completion: ChatCompletion = {
    ...value,
    id: typeof value.id === "string" ? value.id : "",
    object: "chat.completion",
    created: typeof value.created === "number" ? value.created : 0,
    model: typeof value.model === "string" ? value.model : "",
    choices,
  };
  const usage = findUsage(value);
  if (usage) completion.usage = usage;
  else delete completion.usage;
  return completion;
}

function parseChoice(choice: unknown, position: number, source: AnswerSource): ChatChoice {
  if (!isPlainObject(choice) || !isPlainObject(choice.message)) {
    throw malformed(source, `has no message in choices[${position}]`);
  }
  const message = choice.message;
  const parts = Array.isArray(message.content) ? readContentParts(message.content) : undefined;
  const normalized: ChatAssistantMessage = {
    ...message,
    role: "assistant",
    content: typeof message.content === "string" ? message.content : (parts?.text ?? null),
  };
  if (typeof message.reasoning !== "string") {
    if (typeof message.reasoning_content === "string") {
      normalized.reasoning = message.reasoning_content;
    } else if (parts?.reasoning) {
      normalized.reasoning = parts.reasoning;
    } else {
      delete normalized.reasoning;
    }
  }
  if (isPlainObject(message.function_call)) {
    const { name, arguments: args } = message.function_call;
    normalized.function_call = {
      name: typeof name === "string" ? name : "",
      arguments: encodeArguments(args),
    };
  } else {
    delete normalized.function_call;
  }
  if (Array.isArray(message.tool_calls)) {
    normalized.tool_calls = message.tool_calls.map(parseToolCall);
  } else {
    delete normalized.tool_calls;
  }
  return {
    ...choice,
    index: typeof choice.index === "number" ? choice.index : position,
    message: normalized,
    finish_reason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
  };
}

function parseToolCall(call: unknown): ChatToolCall {
  const record = isPlainObject(call) ? call : {};
  const fn = isPlainObject(record.function) ? record.function : {};
  const args = fn.arguments;
  return {
    ...record,
    id: typeof record.id === "string" && record.id !== "" ? record.id : generateToolCallId(),
    type: "function",
    function: {
      ...fn,
      name: typeof fn.name === "string" ? fn.name : "",
      arguments: encodeArguments(args),
    },
  };
}

/**
 * Arguments as JSON text: some providers send an object instead of the
 * text, and none at all, or `""`, for a call without parameters (`{}`).
 */
function encodeArguments(args: unknown): string {
  if (args === undefined || args === null || args === "") return "{}";
  return typeof args === "string" ? args : JSON.stringify(args);
}

function malformed(source: AnswerSource, problem: string): SwitchyardError {
  return new SwitchyardError(
    `${source.method} ${source.url} answered 200 with a body that ${problem}: ${source.snippet()}`,
  );
}
