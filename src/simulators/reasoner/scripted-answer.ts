import type {
  ChatRequest,
  CompressionOptions,
  ProviderRouting,
} from "../../clients/reasoner/chat-types.js";
import type { ScriptedAnswer } from "../../internal/scripted-answer.js";

export type { ScriptedAnswer, ScriptedToolCall } from "../../internal/scripted-answer.js";

/** A request body as the reasoner simulator received it, after validation. */
export interface ReceivedChatRequest extends ChatRequest {
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  /** OpenRouter-style routing at the top level (merge mode). */
  provider?: ProviderRouting;
  /** Compression at the top level (merge mode). */
  compression?: CompressionOptions;
}

/** Settings the built-in scenarios read besides the request. */
export interface ScenarioContext {
  /** Chunk count of the `long-stream` scenario. */
  longStreamChunks: number;
}

/**
 * A scripted model: given the whole request (conversation, tools, options),
 * what it answers. It must decide from the request alone: runs are
 * concurrent and the simulator keeps no state between requests.
 * A string answer is plain text. Its text is sent as given, even when the
 * request asks for a `response_format` (so a script can play a model that
 * gets the format wrong); a forced `tool_choice` is still obeyed.
 */
export type ScenarioFunction = (
  request: ReceivedChatRequest,
  context: ScenarioContext,
) => ScriptedAnswer | string | Promise<ScriptedAnswer | string>;
