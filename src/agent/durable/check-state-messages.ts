import type { ModelMessage } from "../model-message.js";

type Fields = Record<string, unknown>;

/**
 * Checks the conversation of a run state, pushing one problem per wrong
 * field (`messages[3].tool_calls[0].id must be a non-empty string`), and
 * returns a copy of the messages that passed.
 */
export function checkStateMessages(value: unknown, problems: string[]): ModelMessage[] {
  if (!Array.isArray(value)) {
    problems.push("messages must be an array of chat messages");
    return [];
  }
  const messages: ModelMessage[] = [];
  value.forEach((message: unknown, index) => {
    const before = problems.length;
    checkMessage(message, `messages[${index}]`, problems);
    if (problems.length === before) messages.push(structuredClone(message) as ModelMessage);
  });
  return messages;
}

function checkMessage(message: unknown, path: string, problems: string[]): void {
  if (!isObject(message)) {
    problems.push(`${path} must be an object`);
    return;
  }
  const { role, content } = message;
  switch (role) {
    case "system":
    case "user":
      if (typeof content !== "string") problems.push(`${path}.content must be a string`);
      return;
    case "tool":
      if (typeof content !== "string") problems.push(`${path}.content must be a string`);
      if (!nonEmptyString(message.tool_call_id)) {
        problems.push(`${path}.tool_call_id must be a non-empty string`);
      }
      return;
    case "function":
      if (content !== null && typeof content !== "string") {
        problems.push(`${path}.content must be a string or null`);
      }
      if (typeof message.name !== "string") problems.push(`${path}.name must be a string`);
      return;
    case "assistant":
      if (content !== null && typeof content !== "string") {
        problems.push(`${path}.content must be a string or null`);
      }
      checkToolCalls(message.tool_calls, `${path}.tool_calls`, problems);
      return;
    default:
      problems.push(
        `${path}.role must be system, user, assistant, tool or function; got ${JSON.stringify(role) ?? "nothing"}`,
      );
  }
}

function checkToolCalls(calls: unknown, path: string, problems: string[]): void {
  if (calls === undefined) return;
  if (!Array.isArray(calls)) {
    problems.push(`${path} must be an array when present`);
    return;
  }
  calls.forEach((call: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(call)) {
      problems.push(`${at} must be an object`);
      return;
    }
    if (!nonEmptyString(call.id)) problems.push(`${at}.id must be a non-empty string`);
    const target = call.function;
    if (!isObject(target)) {
      problems.push(`${at}.function must be an object with a name and arguments`);
      return;
    }
    if (typeof target.name !== "string") problems.push(`${at}.function.name must be a string`);
    if (typeof target.arguments !== "string") {
      problems.push(`${at}.function.arguments must be a string (the JSON text)`);
    }
  });
}

/** A plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string with at least one character. */
export function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
