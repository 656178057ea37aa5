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

/**
 * The usage a chunk or completion reports, wherever the provider put it:
 * the top-level `usage` (the convention), a vendor extension's (`x_groq.usage`),
 * or a choice's (`choices[0].usage`, Moonshot). `undefined` when none.
 */
export function findUsage(container: Record<string, unknown>): ChatUsage | undefined {
  const usage = normalizeUsage(container.usage);
  if (usage) return usage;
  for (const key in container) {
    if (!key.startsWith("x_")) continue;
    const extension = container[key];
    const found = isPlainObject(extension) ? normalizeUsage(extension.usage) : undefined;
    if (found) return found;
  }
  if (Array.isArray(container.choices)) {
    for (const choice of container.choices) {
      const found = isPlainObject(choice) ? normalizeUsage(choice.usage) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

function readCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
