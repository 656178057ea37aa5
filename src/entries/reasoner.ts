/**
 * `switchyard-agents/reasoner`: the reasoning service's wire format (chat
 * completions with `extra_body`), its request check and stream error details.
 *
 * @module switchyard-agents/reasoner
 */
export type {
  ChatAssistantMessage,
  ChatCallOptions,
  ChatChoice,
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  ChatRole,
  ChatStream,
  ChatStreamEvent,
  ChatSystemMessage,
  ChatToolCall,
  ChatToolChoice,
  ChatToolDefinition,
  ChatToolMessage,
  ChatUsage,
  ChatUserMessage,
  CompressionOptions,
  ExtraBody,
  ProviderRouting,
} from "../clients/reasoner/chat-types.js";
export type { KnownModel, ModelName } from "../clients/reasoner/known-model.js";
export type { StreamErrorDetails, StreamErrorKind } from "../clients/reasoner/stream-error.js";
export {
  type ExtraBodyMode,
  findChatRequestProblems,
  type ValidateChatRequestOptions,
  validateChatRequest,
} from "../clients/reasoner/validate-chat-request.js";
