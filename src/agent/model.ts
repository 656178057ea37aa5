import type {
  ChatCallOptions,
  ChatCompletion,
  ChatRequest,
  ChatStream,
} from "../clients/reasoner/chat-types.js";

/**
 * What the agent needs of a reasoning service. `ReasonerClient` implements it;
 * `ScriptedModel` from `switchyard/testing` implements it without a network.
 */
export interface Model {
  complete(request: ChatRequest, options?: ChatCallOptions): Promise<ChatCompletion>;
  stream(request: ChatRequest, options?: ChatCallOptions): ChatStream;
}
