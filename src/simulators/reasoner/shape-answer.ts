import { randomBytes } from "node:crypto";
import {
  checkScriptedAnswerFields,
  scriptedArgumentText,
  scriptedText,
} from "../../internal/scripted-answer.js";
import { estimateTokens } from "./estimate-tokens.js";
import { forcedArgumentText, formattedContent } from "./schema-answers.js";
import type { ReceivedChatRequest, ScriptedAnswer } from "./scripted-answer.js";

/** A tool call ready to send: id assigned, arguments as JSON text. */
export interface ShapedToolCall {
  id: string;
  name: string;
  argumentText: string;
  argumentPieces?: string[];
}

/** One choice of an answer, after the request's options were applied. */
export interface ShapedAnswer {
  content: string | null;
  contentPieces?: string[];
  toolCalls: ShapedToolCall[];
  reasoning?: string;
  /** The single call is sent as a legacy `function_call`. */
  legacyFunctionCall?: boolean;
  finishReason: string;
  /** The usage the script gave, reported instead of the estimate. */
  usage?: ScriptedAnswer["usage"];
}

/** Options of {@link shapeAnswer}. */
export interface ShapeAnswerOptions {
  /**
   * The final answer (one without tool calls) takes the JSON that
   * `response_format` asks for in place of the script's text. Off for a
   * scenario function, whose answer is sent as it gives it.
   */
  honourResponseFormat: boolean;
}

/**
 * Applies what a real model honours besides the conversation: `tool_choice`
 * (none drops calls, a named function forces it, with arguments its
 * parameters schema accepts), `response_format` (see
 * {@link ShapeAnswerOptions}), `stop` sequences and `max_tokens` (both cut
 * the text only; a cut by max_tokens finishes with `length`).
 *
 * @throws UnanswerableRequestError when a schema it must meet is invalid or cannot be met.
 */
export function shapeAnswer(
  raw: ScriptedAnswer | string,
  request: ReceivedChatRequest,
  options: ShapeAnswerOptions,
): ShapedAnswer {
  const answer: ScriptedAnswer = typeof raw === "string" ? { text: raw } : raw;
  checkScriptedAnswerFields(answer, "reasoner simulator");
  let content = scriptedText(answer);
  let contentPieces = answer.textPieces;
  let toolCalls: ShapedToolCall[] = (answer.toolCalls ?? []).map((call) => {
    const shaped: ShapedToolCall = {
      id: call.id ?? newCallId(),
      name: call.name,
      argumentText: scriptedArgumentText(call),
    };
    if (call.argumentPieces) shaped.argumentPieces = call.argumentPieces;
    return shaped;
  });
  let finishReason = answer.finishReason;

  const choice = request.tool_choice;
  if (choice === "none" && toolCalls.length > 0) {
    if (!content) {
      content = `I would call ${toolCalls.map((call) => call.name).join(", ")} next, but tool_choice is "none", so I answer in text only.`;
      contentPieces = undefined;
    }
    toolCalls = [];
  } else if (typeof choice === "object") {
    const forced = choice.function.name;
    const kept = toolCalls.filter((call) => call.name === forced);
    toolCalls =
      kept.length > 0
        ? kept
        : [{ id: newCallId(), name: forced, argumentText: forcedArgumentText(request, forced) }];
  }
  if (options.honourResponseFormat && toolCalls.length === 0) {
    const formatted = formattedContent(request, content);
    if (formatted !== undefined) {
      content = formatted;
      contentPieces = undefined;
    }
  }

  if (content !== null) {
    const stops = typeof request.stop === "string" ? [request.stop] : (request.stop ?? []);
    const cutAt = Math.min(
      ...stops.filter((stop) => stop !== "").map((stop) => indexOrInfinity(content!, stop)),
    );
    if (Number.isFinite(cutAt)) {
      content = content.slice(0, cutAt);
      contentPieces = undefined;
    }
    const limit = request.max_tokens;
    if (limit !== undefined && estimateTokens(content) > limit) {
      content = content.slice(0, limit * 4);
      contentPieces = undefined;
      finishReason = "length";
    }
  }

  const legacy = answer.legacyFunctionCall === true && toolCalls.length === 1;
  const shaped: ShapedAnswer = {
    content,
    toolCalls,
    finishReason:
      finishReason ?? (toolCalls.length > 0 ? (legacy ? "function_call" : "tool_calls") : "stop"),
  };
  if (legacy) shaped.legacyFunctionCall = true;
  if (contentPieces) shaped.contentPieces = contentPieces;
  if (answer.reasoning !== undefined) shaped.reasoning = answer.reasoning;
  if (answer.usage !== undefined) shaped.usage = answer.usage;
  return shaped;
}

function indexOrInfinity(text: string, search: string): number {
  const index = text.indexOf(search);
  return index < 0 ? Number.POSITIVE_INFINITY : index;
}

function newCallId(): string {
  return `call_${randomBytes(12).toString("hex")}`;
}
