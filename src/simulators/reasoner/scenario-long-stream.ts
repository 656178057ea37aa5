import { readConversation } from "./read-conversation.js";
import { namedOrFirstTool } from "./scenario-echo-tool.js";
import type { ReceivedChatRequest, ScenarioContext, ScriptedAnswer } from "./scripted-answer.js";

/**
 * A long streamed answer for benchmarks, about `longStreamChunks` chunks.
 * With tools offered and no result yet: half text pieces, half argument
 * fragments of one call (the whitespace-padded `{}`, so any tool accepts
 * it). After a tool result, or without tools: text pieces ending in "done".
 */
export function longStreamScenario(
  request: ReceivedChatRequest,
  context: ScenarioContext,
): ScriptedAnswer {
  const { task, steps, offeredTools } = readConversation(request);
  const total = Math.max(2, Math.floor(context.longStreamChunks));
  const tool = namedOrFirstTool(task, offeredTools);
  if (steps.length > 0 || !tool) return { textPieces: textPieces(total, "done") };
  const textCount = Math.floor(total / 2);
  const argumentCount = Math.max(2, total - textCount);
  const argumentPieces = ["{", ...Array.from({ length: argumentCount - 2 }, () => " "), "}"];
  return {
    textPieces: textPieces(textCount, `calling ${tool}.`),
    toolCalls: [{ name: tool, arguments: argumentPieces.join(""), argumentPieces }],
  };
}

function textPieces(count: number, last: string): string[] {
  const pieces = Array.from({ length: count - 1 }, (_, index) => `${index + 1} `);
  pieces.push(last);
  return pieces;
}
