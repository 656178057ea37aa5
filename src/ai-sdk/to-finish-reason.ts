import type { SpecFinishReason } from "./ai-sdk-language-model.js";

const finishReasons: Record<string, string> = {
  stop: "stop",
  length: "length",
  "tool-calls": "tool_calls",
  "content-filter": "content_filter",
  error: "error",
  other: "other",
  interrupted: "interrupted",
  unknown: "unknown",
};

/**
 * The specification's finish reason in the chat-completions spelling:
 * `stop`, `length`, `tool_calls`, `content_filter`; `error`, `other`,
 * `interrupted` and `unknown` as they are. Read from the unified reason
 * (`v3` on) or the string (`v2`).
 */
export function toFinishReason(reason: SpecFinishReason): string {
  const unified = typeof reason === "string" ? reason : reason.unified;
  return finishReasons[unified] ?? "other";
}
