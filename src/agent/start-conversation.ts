import { ConfigurationError } from "../errors/configuration-error.js";
import type { ModelMessage } from "./model-message.js";

/** What a run starts from: the user's text, or a conversation to continue. */
export type AgentInput = string | readonly ModelMessage[];

const roles = new Set(["system", "user", "assistant", "tool", "function"]);

/**
 * The conversation a run starts with: the instructions as a system message,
 * then the input (a string becomes one user message). The caller's array is
 * copied, never changed. Throws a ConfigurationError for empty or malformed input.
 */
export function startConversation(
  input: AgentInput,
  instructions: string | undefined,
): ModelMessage[] {
  const messages: ModelMessage[] = [];
  if (instructions !== undefined && instructions !== "") {
    messages.push({ role: "system", content: instructions });
  }
  if (typeof input === "string") {
    if (input.trim() === "")
      throw new ConfigurationError("The run input is an empty string; give the task.");
    messages.push({ role: "user", content: input });
    return messages;
  }
  if (!Array.isArray(input)) {
    throw new ConfigurationError("The run input must be a string or an array of chat messages.");
  }
  const problems: string[] = [];
  input.forEach((message: unknown, index) => {
    const role = (message as { role?: unknown } | null)?.role;
    if (
      typeof message !== "object" ||
      message === null ||
      typeof role !== "string" ||
      !roles.has(role)
    ) {
      problems.push(
        `input[${index}] must be a chat message with role system, user, assistant, tool or function.`,
      );
    }
  });
  if (input.length === 0)
    problems.push("The run input is an empty array; give at least one message.");
  if (problems.length > 0) throw new ConfigurationError(problems);
  messages.push(...input);
  return messages;
}
