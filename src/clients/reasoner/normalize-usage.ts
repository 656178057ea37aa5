import type { ChatUsage } from "./chat-types.js";
import { isPlainObject } from "./validation-checks.js";

/**
 * Token counts as a `ChatUsage`, or `undefined` when `value` is not a usage
 * object. Missing counts become 0 (total: the sum); extra fields are kept.
 */
export function normalizeUsage(value: unknown): ChatUsage | undefined {
  if (!isPlainObject(value)) return undefined;
  const prompt = readCount(value.prompt_tokens);
  const completion = readCount(value.completion_tokens);
  const total = typeof value.total_tokens === "number" ? value.total_tokens : prompt + completion;
  return { ...value, prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
}

function readCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
