import { answerUsage, type CompletionHeader } from "./completion-parts.js";
import type { ReceivedChatRequest } from "./scripted-answer.js";
import type { ShapedAnswer } from "./shape-answer.js";
import type { StreamStyle } from "./stream-style.js";

/** The SSE text of a streamed answer, one entry per event. */
export interface StreamEvents {
  events: string[];
  /** Index in `events` of the first chunk carrying a finish_reason. */
  firstFinish: number;
}

// Enough pieces to exercise reassembly without making 1,000 concurrent runs slow.
const maximumPieces = 64;

/**
 * Cuts answers into `chat.completion.chunk` events as real providers do: a
 * keep-alive comment, a role chunk, optional reasoning deltas, text pieces,
 * tool-call fragments, the finish chunk, usage, then `data: [DONE]`.
 */
export function buildStreamEvents(
  header: CompletionHeader,
  request: ReceivedChatRequest,
  answers: readonly ShapedAnswer[],
  style: StreamStyle,
): StreamEvents {
  const end = style.lineEnd;
  const comment = `: keep-alive${end}${end}`;
  const usage = answerUsage(request, answers);
  const data = (choices: unknown[], extra?: Record<string, unknown>) =>
    `data: ${JSON.stringify({
      id: header.id,
      object: "chat.completion.chunk",
      created: header.created,
      model: header.model,
      provider: header.provider,
      choices,
      ...extra,
    })}${end}${end}`;
  const delta = (index: number, body: Record<string, unknown>) =>
    data([{ index, delta: body, finish_reason: null }]);

  const events: string[] = [comment];
  let firstFinish = -1;
  for (const [index, answer] of answers.entries()) {
    events.push(delta(index, { role: "assistant", content: "" }));
    if (style.reasoningField && answer.reasoning) {
      for (const piece of splitText(answer.reasoning)) {
        events.push(delta(index, { [style.reasoningField]: piece }));
      }
    }
    const pieces = answer.contentPieces ?? (answer.content ? splitText(answer.content) : []);
    for (const [position, piece] of pieces.entries()) {
      events.push(delta(index, { content: piece }));
      if (position === 0) events.push(comment);
    }
    const [legacyCall] = answer.legacyFunctionCall ? answer.toolCalls : [];
    if (legacyCall) {
      events.push(delta(index, { function_call: { name: legacyCall.name, arguments: "" } }));
      for (const fragment of legacyCall.argumentPieces ?? splitArguments(legacyCall.argumentText)) {
        events.push(delta(index, { function_call: { arguments: fragment } }));
      }
    }
    for (const [callIndex, call] of legacyCall ? [] : answer.toolCalls.entries()) {
      const head = { id: call.id, type: "function" };
      const fragments = call.argumentPieces ?? splitArguments(call.argumentText);
      if (style.toolCalls === "whole") {
        const whole = {
          index: callIndex,
          ...head,
          function: { name: call.name, arguments: call.argumentText },
        };
        events.push(delta(index, { tool_calls: [whole] }));
      } else if (style.toolCalls === "repeated") {
        for (const fragment of fragments) {
          const repeated = { ...head, function: { name: call.name, arguments: fragment } };
          events.push(delta(index, { tool_calls: [repeated] }));
        }
      } else {
        const first = { index: callIndex, ...head, function: { name: call.name, arguments: "" } };
        events.push(delta(index, { tool_calls: [first] }));
        for (const fragment of fragments) {
          events.push(
            delta(index, { tool_calls: [{ index: callIndex, function: { arguments: fragment } }] }),
          );
        }
      }
    }
    if (firstFinish < 0) firstFinish = events.length;
    const finish = [{ index, delta: {}, finish_reason: answer.finishReason }];
    const last = index === answers.length - 1;
    events.push(style.usage === "finish" && last ? data(finish, { usage }) : data(finish));
  }
  if (style.usage === "separate") events.push(data([], { usage }));
  events.push(`data: [DONE]${end}${end}`);
  return { events, firstFinish };
}

/** Splits text after whitespace into at most 64 pieces of a few words each. */
function splitText(text: string): string[] {
  const words = text.split(/(?<=\s)/);
  const perPiece = Math.max(3, Math.ceil(words.length / maximumPieces));
  const pieces: string[] = [];
  for (let start = 0; start < words.length; start += perPiece) {
    pieces.push(words.slice(start, start + perPiece).join(""));
  }
  return pieces;
}

/** Splits argument JSON into at most 64 fragments, mid-token as providers do. */
function splitArguments(text: string): string[] {
  if (text === "") return [""];
  const size = Math.max(6, Math.ceil(text.length / maximumPieces));
  const fragments: string[] = [];
  for (let start = 0; start < text.length; start += size) {
    fragments.push(text.slice(start, start + size));
  }
  return fragments;
}
