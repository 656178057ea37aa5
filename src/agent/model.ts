import type { JsonSchema } from "../tools/json-schema.js";
import type {
  AssistantModelMessage,
  ModelMessage,
  ModelToolChoice,
  ModelToolDefinition,
} from "./model-message.js";

/**
 * What the agent needs of a language model: one answer to a request, whole
 * or streamed. `ReasonerClient` implements it for the reasoning service (and
 * any chat-completions endpoint); `ScriptedModel` from `switchyard-agents/testing`
 * without a network. A `Model` for another provider converts the request
 * and the answer; vendor options (routing, compression, keys) belong to it,
 * not to the agent.
 *
 * @example
 * const model: Model = {
 *   async complete(request) {
 *     const text = await myProvider.chat(request.messages);
 *     return { choices: [{ message: { role: "assistant", content: text }, finish_reason: "stop" }] };
 *   },
 *   stream(request, options) {
 *     return streamFromResponse(this.complete(request, options));
 *   },
 * };
 */
export interface Model {
  complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
  stream(request: ModelRequest, options?: ModelCallOptions): ModelStream;
}

/**
 * One model call: the conversation, the tools offered, and the settings every
 * provider knows. Names follow the chat-completions convention.
 */
export interface ModelRequest {
  messages: ModelMessage[];
  /** Which model; omitted means the model's (or the service's) default. */
  model?: string;
  tools?: ModelToolDefinition[];
  tool_choice?: ModelToolChoice;
  temperature?: number;
  top_p?: number;
  /** Answers asked for; the agent follows the first. */
  n?: number;
  stop?: string | string[];
  max_tokens?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  /** The form of the answer; the agent sets a `json_schema` one for structured output. */
  response_format?: ModelResponseFormat;
}

/**
 * The form a model should answer in: plain text, any JSON object, or JSON
 * matching a schema (`strict`: the provider enforces it exactly).
 */
export type ModelResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema";
      json_schema: { name: string; description?: string; schema: JsonSchema; strict?: boolean };
    };

/** How one call may be cut short. */
export interface ModelCallOptions {
  signal?: AbortSignal;
  /** Per-request timeout in milliseconds; overrides the model's own. */
  timeoutMs?: number;
}

/** Tokens one model call used. Providers may add fields of their own. */
export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [key: string]: unknown;
}

/** One answer of a response. */
export interface ModelChoice {
  index?: number;
  message: AssistantModelMessage;
  /** `stop`, `length`, `tool_calls`, `function_call`, `content_filter`, or a provider's own. */
  finish_reason: string | null;
}

/**
 * A model's whole answer. The agent acts on the first choice; a
 * `chat.completion` object is one, and may carry more fields.
 */
export interface ModelResponse {
  choices: ModelChoice[];
  usage?: ModelUsage | undefined;
  /** The model that answered, when the provider says. */
  model?: string;
  [key: string]: unknown;
}

/** What a streamed answer yields as it comes. */
export type ModelStreamEvent =
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
      usage: ModelUsage | undefined;
    };

/** A streamed answer: iterate its events, or await the whole answer. */
export interface ModelStream extends AsyncIterable<ModelStreamEvent> {
  /** The same answer `complete()` would give, once the stream has ended. */
  finalCompletion(): Promise<ModelResponse>;
}
