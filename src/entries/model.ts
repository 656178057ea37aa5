/**
 * `switchyard-agents/model`: the protocol the agent speaks to a language model.
 * Implement `Model` to run an agent on a provider of your own.
 *
 * @module switchyard-agents/model
 */
export type {
  Model,
  ModelCallOptions,
  ModelRequest,
  ModelResponse,
  ModelResponseFormat,
  ModelStream,
  ModelStreamEvent,
  ModelUsage,
} from "../agent/model.js";
export type {
  ModelMessage,
  ModelToolCall,
  ModelToolChoice,
  ModelToolDefinition,
} from "../agent/model-message.js";
