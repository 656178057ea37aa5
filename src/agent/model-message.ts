import type { JsonSchema } from "../tools/json-schema.js";

/**
 * The messages of a conversation, as the agent keeps them, sends them to its
 * `Model` and saves them in a run's state. They follow the chat-completions
 * convention most providers speak; a `Model` for a provider that speaks
 * another converts them (and only them).
 */
export type ModelMessage =
  | SystemModelMessage
  | UserModelMessage
  | AssistantModelMessage
  | ToolModelMessage
  | FunctionModelMessage;

/** Who wrote a message. */
export type ModelMessageRole = ModelMessage["role"];

/** One tool call the model asked for. `arguments` is the raw JSON text. */
export interface ModelToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** The instructions, sent first. */
export interface SystemModelMessage {
  role: "system";
  content: string;
  name?: string;
}

/** What the person (or the application) asked. */
export interface UserModelMessage {
  role: "user";
  content: string;
  name?: string;
}

/** The model's answer: text, tool calls, or both. */
export interface AssistantModelMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ModelToolCall[];
  /**
   * The single call of a legacy answer (`function_call`, from before
   * `tool_calls`). The agent runs it like a tool call and answers it with a
   * `function` message.
   */
  function_call?: { name: string; arguments: string };
  /** Reasoning text the model returned, when it did. */
  reasoning?: string;
  refusal?: string | null;
}

/** The result of one tool call, answering its id. */
export interface ToolModelMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** The result of a legacy `function_call`, answering it by name. */
export interface FunctionModelMessage {
  role: "function";
  name: string;
  content: string | null;
}

/** A tool as the model is told about it. */
export interface ModelToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** Whether the model may, must not, or must call a given tool. */
export type ModelToolChoice = "none" | "auto" | { type: "function"; function: { name: string } };
