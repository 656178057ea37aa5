import { ConfigurationError } from "../../errors/index.js";

/**
 * How a streamed answer is cut into chunks. Real providers differ in each of
 * these; the presets of {@link StreamChunking} pick common combinations.
 */
export interface StreamStyle {
  /**
   * `split`: id/type/name on the first chunk of each call, then argument
   * fragments. `whole`: each call complete in one chunk. `repeated`: id,
   * type and name on every fragment and no `index`.
   */
  toolCalls: "split" | "whole" | "repeated";
  /** Line end of the SSE text. */
  lineEnd: "\n" | "\r\n";
  /** Field carrying reasoning deltas before the answer; none when omitted. */
  reasoningField?: "reasoning_content" | "reasoning";
  /**
   * `separate`: a usage chunk with `choices: []` after the finish chunk.
   * `finish`: usage on the finish chunk.
   */
  usage: "separate" | "finish";
  /** When set, the SSE bytes are written in pieces of this many bytes (splits UTF-8 characters). */
  bytesPerWrite?: number;
}

/**
 * Named stream styles: `openai` (default), `whole` (one-chunk tool calls),
 * `crlf` (CRLF line ends), `reasoning` (`reasoning_content` deltas first),
 * `reasoning-field` (`reasoning` deltas first), `repeated` (id/type/name on
 * every tool-call chunk, no index), `usage-on-finish`, `bytes` (written 3
 * bytes at a time).
 */
export type StreamChunking =
  | "openai"
  | "whole"
  | "crlf"
  | "reasoning"
  | "reasoning-field"
  | "repeated"
  | "usage-on-finish"
  | "bytes";

const openai: StreamStyle = { toolCalls: "split", lineEnd: "\n", usage: "separate" };

const presets: Record<StreamChunking, StreamStyle> = {
  openai,
  whole: { ...openai, toolCalls: "whole" },
  crlf: { ...openai, lineEnd: "\r\n" },
  reasoning: { ...openai, reasoningField: "reasoning_content" },
  "reasoning-field": { ...openai, reasoningField: "reasoning" },
  repeated: { ...openai, toolCalls: "repeated" },
  "usage-on-finish": { ...openai, usage: "finish" },
  bytes: { ...openai, bytesPerWrite: 3 },
};

/** The style for a preset name or a style object; `openai` when omitted. */
export function resolveStreamStyle(
  chunking: StreamChunking | StreamStyle | undefined,
): StreamStyle {
  if (chunking === undefined) return openai;
  if (typeof chunking === "string") {
    const style = Object.hasOwn(presets, chunking) ? presets[chunking] : undefined;
    if (!style) {
      throw new ConfigurationError(
        `Unknown chunking "${chunking}"; use one of ${Object.keys(presets).join(", ")} or a StreamStyle object.`,
      );
    }
    return style;
  }
  return chunking;
}
