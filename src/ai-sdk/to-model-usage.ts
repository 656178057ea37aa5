import type { ModelUsage } from "../agent/model.js";
import type { SpecUsage } from "./ai-sdk-language-model.js";

/**
 * The specification's token counts in the chat-completions form: input as
 * `prompt_tokens`, output as `completion_tokens` (reasoning included, as
 * providers count it), their sum as `total_tokens` unless the provider gave
 * one, and the reasoning and cached-input counts, when known, under
 * `completion_tokens_details.reasoning_tokens` and
 * `prompt_tokens_details.cached_tokens`. A count the provider does not know
 * is 0.
 */
export function toModelUsage(usage: SpecUsage | undefined): ModelUsage | undefined {
  if (usage === undefined) return undefined;
  const counts =
    typeof usage.inputTokens === "object"
      ? {
          input: usage.inputTokens.total,
          output: typeof usage.outputTokens === "object" ? usage.outputTokens.total : undefined,
          total: undefined,
          reasoning:
            typeof usage.outputTokens === "object" ? usage.outputTokens.reasoning : undefined,
          cached: usage.inputTokens.cacheRead,
        }
      : readFlatUsage(usage as Extract<SpecUsage, { totalTokens: unknown }>);
  const prompt = counts.input ?? 0;
  const completion = counts.output ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: counts.total ?? prompt + completion,
    ...(counts.reasoning !== undefined
      ? { completion_tokens_details: { reasoning_tokens: counts.reasoning } }
      : {}),
    ...(counts.cached !== undefined
      ? { prompt_tokens_details: { cached_tokens: counts.cached } }
      : {}),
  };
}

/** Specification `v2`: one number per count. */
function readFlatUsage(usage: Extract<SpecUsage, { totalTokens: unknown }>) {
  return {
    input: usage.inputTokens,
    output: usage.outputTokens,
    total: usage.totalTokens,
    reasoning: usage.reasoningTokens,
    cached: usage.cachedInputTokens,
  };
}
