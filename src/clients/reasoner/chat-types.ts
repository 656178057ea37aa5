/**
 * Wire types of the chat-completions convention the reasoning service follows
 * (docs/contract.md §1). Fields not named here are kept as they come.
 */

import type { ModelName } from "./known-model.js";

export type ChatRole = "system" | "user" | "assistant" | "tool" | "function";

/** One function call the model asked for. `arguments` is the raw JSON text. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatSystemMessage {
  role: "system";
  content: string;
  name?: string;
}

export interface ChatUserMessage {
  role: "user";
  content: string;
  name?: string;
}

export interface ChatAssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ChatToolCall[];
  /** The single call of a legacy answer, from before `tool_calls`; `arguments` is JSON text. */
  function_call?: { name: string; arguments: string };
  /** Reasoning text the provider streamed or returned, when it did. */
  reasoning?: string;
  refusal?: string | null;
}

export interface ChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

export interface ChatFunctionMessage {
  role: "function";
  name: string;
  content: string | null;
}

export type ChatMessage =
  | ChatSystemMessage
  | ChatUserMessage
  | ChatAssistantMessage
  | ChatToolMessage
  | ChatFunctionMessage;

/** A JSON Schema object; tool parameters are `type: "object"` schemas. */
export type JsonSchema = { [key: string]: unknown };

export interface ChatToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

export type ChatToolChoice = "none" | "auto" | { type: "function"; function: { name: string } };

/** Provider routing, sent in `extra_body.provider`. */
export interface ProviderRouting {
  /** Preferred provider order. */
  order?: string[];
  /** Whether other providers may serve the request when the preferred ones fail. */
  allow_fallbacks?: boolean;
  /** Capabilities a provider must have. */
  require?: string[];
}

/** Token compression, sent in `extra_body.compression`. */
export interface CompressionOptions {
  /** Compression starts when the conversation exceeds this many tokens (> 0). */
  token_limit?: number;
  /** MMR lambda for natural-language compression, 0..1. */
  mmr_lambda_text?: number;
  /** MMR lambda for code compression, 0..1. */
  mmr_lambda_code?: number;
  /** Embedding provider used by compression. */
  embedding_provider?: string;
}

export interface ExtraBody {
  provider?: ProviderRouting;
  compression?: CompressionOptions;
  [key: string]: unknown;
}

/** `response_format`: plain text, any JSON object, or JSON matching a schema. */
export type ChatResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema";
      json_schema: { name: string; description?: string; schema: JsonSchema; strict?: boolean };
    };

/** A request as the caller builds it; `stream` is set by the method called. */
export interface ChatRequest {
  messages: ChatMessage[];
  model?: ModelName;
  tools?: ChatToolDefinition[];
  tool_choice?: ChatToolChoice;
  temperature?: number;
  top_p?: number;
  n?: number;
  stop?: string | string[];
  max_tokens?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  /** Ask for JSON matching a schema (structured output), any JSON object, or text. */
  response_format?: ChatResponseFormat;
  extra_body?: ExtraBody;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [key: string]: unknown;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

export interface ChatChoice {
  index: number;
  message: ChatAssistantMessage;
  finish_reason: FinishReason | string | null;
}

/** The standard non-streaming answer; `finalCompletion()` of a stream has the same shape. */
export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: ChatChoice[];
  usage?: ChatUsage;
  [key: string]: unknown;
}

/** Normalized events of a streamed answer. */
export type ChatStreamEvent =
  | { type: "text-delta"; choiceIndex: number; delta: string }
  | { type: "reasoning-delta"; choiceIndex: number; delta: string }
  | {
      type: "tool-call-delta";
      choiceIndex: number;
      /** Position of the call in the answer's `tool_calls`, from 0. */
      toolCallIndex: number;
      id: string;
      name: string;
      argumentsDelta: string;
    }
  | {
      type: "finish";
      choiceIndex: number;
      finishReason: string;
      usage: ChatUsage | undefined;
    };

/** What `stream()` returns: iterate the events, or await the whole answer. */
export interface ChatStream extends AsyncIterable<ChatStreamEvent> {
  /** Resolves to the same `chat.completion` shape `complete()` returns. */
  finalCompletion(): Promise<ChatCompletion>;
}

export interface ChatCallOptions {
  signal?: AbortSignal;
  /** Per-request timeout in milliseconds; overrides the client's. */
  timeoutMs?: number;
}
