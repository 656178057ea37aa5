import { randomBytes } from "node:crypto";
import type { ChatUsage } from "../../clients/reasoner/chat-types.js";
import { estimatePromptTokens, estimateTokens } from "./estimate-tokens.js";
import type { ReceivedChatRequest } from "./scripted-answer.js";
import type { ShapedAnswer } from "./shape-answer.js";

/** Fields every completion and chunk of one answer share. */
export interface CompletionHeader {
  id: string;
  created: number;
  model: string;
  /** The provider that "served" the request: the first of `provider.order`. */
  provider: string;
}

/** The header of an answer to `request`: the requested model and the preferred provider echoed. */
export function completionHeader(request: ReceivedChatRequest): CompletionHeader {
  const order = request.extra_body?.provider?.order ?? request.provider?.order;
  return {
    id: `chatcmpl-${randomBytes(12).toString("hex")}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model ?? "oss-120b",
    provider: order?.[0] ?? "sim-default",
  };
}

/**
 * The usage the script gave (the first answer's), or a rough estimate of
 * the answers' (about four characters a token).
 */
export function answerUsage(
  request: ReceivedChatRequest,
  answers: readonly ShapedAnswer[],
): ChatUsage {
  const given = answers[0]?.usage;
  if (given !== undefined) return given;
  const prompt = estimatePromptTokens(request);
  let completion = 0;
  for (const answer of answers) {
    completion += estimateTokens(answer.content ?? "") + estimateTokens(answer.reasoning ?? "");
    for (const call of answer.toolCalls) {
      completion += estimateTokens(call.name) + estimateTokens(call.argumentText);
    }
  }
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}
