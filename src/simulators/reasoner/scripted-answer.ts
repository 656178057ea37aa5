import type {
  ChatRequest,
  CompressionOptions,
  ProviderRouting,
} from "../../clients/reasoner/chat-types.js";

/** A request body as the reasoner simulator received it, after validation. */
export interface ReceivedChatRequest extends ChatRequest {
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  /** OpenRouter-style routing at the top level (merge mode). */
  provider?: ProviderRouting;
  /** Compression at the top level (merge mode). */
  compression?: CompressionOptions;
}

/** One function call a scripted model makes. */
export interface ScriptedToolCall {
  /** Name of an offered tool. */
  name: string;
  /** Arguments object (serialized as JSON) or the raw argument text as-is. */
  arguments: unknown;
  /** Call id; a fresh `call_...` id when omitted. */
  id?: string;
  /** Exact fragments to stream the argument text in; their concatenation is the argument text. */
  argumentPieces?: string[];
}

/** What a scripted model answers to one request. */
export interface ScriptedAnswer {
  /** Answer text; `null` or omitted with tool calls. */
  content?: string | null;
  /** Exact fragments to stream `content` in (joined when not streaming). */
  contentPieces?: string[];
  /** Function calls, in order. */
  toolCalls?: ScriptedToolCall[];
  /** Reasoning text, shown when the stream style carries reasoning. */
  reasoning?: string;
  /**
   * Answer the single tool call the legacy way, as `function_call` (before
   * `tool_calls` existed), finishing with `function_call`.
   */
  legacyFunctionCall?: boolean;
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
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
 * A string answer is plain text.
 */
export type ScenarioFunction = (
  request: ReceivedChatRequest,
  context: ScenarioContext,
) => ScriptedAnswer | string | Promise<ScriptedAnswer | string>;
