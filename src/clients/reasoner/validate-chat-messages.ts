import { describeValue, isPlainObject } from "./validation-checks.js";

const roles = new Set(["system", "user", "assistant", "tool", "function"]);

/**
 * Checks `messages`: a non-empty array of messages with valid roles, string
 * content where the role needs it, a `tool_call_id` on every tool message and
 * well-formed assistant tool calls. Message contents are never echoed.
 */
export function checkMessages(problems: string[], messages: unknown): void {
  if (messages === undefined) {
    problems.push("messages is missing: give at least one message");
    return;
  }
  if (!Array.isArray(messages)) {
    problems.push(`messages ${describeValue(messages)} is not an array of messages`);
    return;
  }
  if (messages.length === 0) {
    problems.push("messages is empty: give at least one message");
    return;
  }
  for (let index = 0; index < messages.length; index++) {
    checkMessage(problems, `messages[${index}]`, messages[index]);
  }
}

function checkMessage(problems: string[], label: string, message: unknown): void {
  if (!isPlainObject(message)) {
    problems.push(`${label} ${describeValue(message)} is not a message object`);
    return;
  }
  const role = message.role;
  if (typeof role !== "string" || !roles.has(role)) {
    problems.push(
      `${label}.role ${describeValue(role)} is not one of system, user, assistant, tool, function`,
    );
    return;
  }
  if (message.name !== undefined && typeof message.name !== "string") {
    problems.push(`${label}.name ${describeValue(message.name)} is not a string`);
  }
  const content = message.content;
  switch (role) {
    case "system":
    case "user":
      if (typeof content !== "string") {
        problems.push(`${label}.content (${role}) is ${describeType(content)}; use a string`);
      }
      break;
    case "assistant":
      checkAssistantMessage(problems, label, message);
      break;
    case "tool":
      if (typeof message.tool_call_id !== "string" || message.tool_call_id === "") {
        problems.push(
          `${label} (tool) has no tool_call_id: give the id of the tool call it answers`,
        );
      }
      checkNullableContent(problems, label, role, content);
      break;
    case "function":
      if (typeof message.name !== "string" || message.name === "") {
        problems.push(`${label} (function) has no name: give the name of the function it answers`);
      }
      checkNullableContent(problems, label, role, content);
      break;
  }
}

function checkAssistantMessage(
  problems: string[],
  label: string,
  message: Record<string, unknown>,
): void {
  const { content, tool_calls: toolCalls, function_call: functionCall } = message;
  if (functionCall !== undefined) {
    if (
      !isPlainObject(functionCall) ||
      typeof functionCall.name !== "string" ||
      typeof functionCall.arguments !== "string"
    ) {
      problems.push(
        `${label}.function_call ${describeValue(functionCall)} is not {name, arguments} with string arguments (JSON text)`,
      );
    }
  }
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls)) {
      problems.push(`${label}.tool_calls ${describeValue(toolCalls)} is not an array`);
    } else {
      toolCalls.forEach((call, index) => {
        checkToolCall(problems, `${label}.tool_calls[${index}]`, call);
      });
    }
  }
  const hasToolCalls =
    (Array.isArray(toolCalls) && toolCalls.length > 0) || isPlainObject(functionCall);
  if (content === undefined || content === null) {
    if (!hasToolCalls) {
      problems.push(`${label} (assistant) has neither content nor tool_calls`);
    }
  } else if (typeof content !== "string") {
    problems.push(`${label}.content (assistant) is ${describeType(content)}; use a string or null`);
  }
}

function checkToolCall(problems: string[], label: string, call: unknown): void {
  if (!isPlainObject(call)) {
    problems.push(`${label} ${describeValue(call)} is not a tool call object`);
    return;
  }
  if (typeof call.id !== "string" || call.id === "") {
    problems.push(`${label}.id ${describeValue(call.id)} is not a non-empty string`);
  }
  if (call.type !== "function") {
    problems.push(`${label}.type ${describeValue(call.type)} is not "function"`);
  }
  const fn = call.function;
  if (!isPlainObject(fn)) {
    problems.push(`${label}.function ${describeValue(fn)} is not an object`);
    return;
  }
  if (typeof fn.name !== "string" || fn.name === "") {
    problems.push(`${label}.function.name ${describeValue(fn.name)} is not a non-empty string`);
  }
  if (typeof fn.arguments !== "string") {
    problems.push(
      `${label}.function.arguments is ${describeType(fn.arguments)}; use the JSON text of the arguments`,
    );
  }
}

function checkNullableContent(
  problems: string[],
  label: string,
  role: string,
  content: unknown,
): void {
  if (content !== null && typeof content !== "string") {
    problems.push(`${label}.content (${role}) is ${describeType(content)}; use a string or null`);
  }
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === undefined) return "missing";
  const type = typeof value;
  return type === "object" || type === "undefined" ? `an ${type}` : `a ${type}`;
}
