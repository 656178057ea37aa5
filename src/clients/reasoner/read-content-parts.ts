import { isPlainObject } from "./validation-checks.js";

/** The text of a `content` sent as an array of typed parts, split into answer and reasoning. */
export interface ContentPartsText {
  text: string;
  reasoning: string;
}

const reasoningTypes = new Set(["thinking", "reasoning", "reasoning_text", "summary_text"]);

/**
 * Reads `content` sent as an array of typed parts instead of a string, as
 * Mistral's reasoning models (`{type: "thinking", thinking: [{type: "text",
 * text}]}`) and gpt-oss endpoints (`{type: "reasoning", summary: [{type:
 * "summary_text", text}]}`) do: text parts are the answer, thinking and
 * reasoning parts (and everything nested in them) the reasoning. Parts of
 * other types (images, audio) carry no text and are skipped.
 */
export function readContentParts(parts: readonly unknown[]): ContentPartsText {
  const found: ContentPartsText = { text: "", reasoning: "" };
  for (const part of parts) collect(part, false, found);
  return found;
}

function collect(part: unknown, inReasoning: boolean, found: ContentPartsText): void {
  if (typeof part === "string") {
    found[inReasoning ? "reasoning" : "text"] += part;
    return;
  }
  if (!isPlainObject(part)) return;
  const type = typeof part.type === "string" ? part.type : "text";
  const reasoning = inReasoning || reasoningTypes.has(type);
  if (type !== "text" && !reasoning) return;
  for (const key of ["text", "thinking", "reasoning", "summary", "content"]) {
    const value = part[key];
    if (typeof value === "string") found[reasoning ? "reasoning" : "text"] += value;
    else if (Array.isArray(value)) for (const inner of value) collect(inner, reasoning, found);
  }
}
