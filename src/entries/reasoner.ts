/**
 * `switchyard-agents/reasoner`: the reasoning service's wire format (chat
 * completions with `extra_body`), its request check and stream error details.
 *
 * @module switchyard-agents/reasoner
 */
export type {
  ChatCallOptions,
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  ChatStream,
  CompressionOptions,
  ExtraBody,
  ProviderRouting,
} from "../clients/reasoner/chat-types.js";
export { validateChatRequest } from "../clients/reasoner/validate-chat-request.js";
