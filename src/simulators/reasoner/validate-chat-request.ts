/**
 * Server-side check of a chat request against docs/contract.md §1, written apart
 * from the client so the two can disagree (and a test then shows which is
 * wrong). The first problem found is reported, as real providers do.
 */

/** What a 400 answer names: the message, a machine code and the parameter path. */
export interface RequestProblem {
  message: string;
  code: string;
  param: string | null;
}

type Check = RequestProblem | undefined;
type Body = Record<string, unknown>;

const roles = ["system", "user", "assistant", "tool", "function"];
const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

/** The first contract violation in `body`, or `undefined` when the request is valid. */
export function validateChatRequest(body: unknown): RequestProblem | undefined {
  if (!isObject(body)) {
    return problem("The request body must be a JSON object.", "invalid_type", null);
  }
  return (
    checkMessages(body.messages) ??
    checkOptionalString(body, "model") ??
    checkOptionalBoolean(body, "stream") ??
    checkStreamOptions(body.stream_options) ??
    checkRange(body, "temperature", 0, 2) ??
    checkRange(body, "top_p", 0, 1) ??
    checkRange(body, "presence_penalty", -2, 2) ??
    checkRange(body, "frequency_penalty", -2, 2) ??
    checkPositiveInteger(body, "n") ??
    checkPositiveInteger(body, "max_tokens") ??
    checkStop(body.stop) ??
    checkTools(body.tools) ??
    checkToolChoice(body.tool_choice, body.tools) ??
    checkResponseFormat(body.response_format) ??
    checkExtraBody(body)
  );
}

function checkMessages(messages: unknown): Check {
  if (messages === undefined) {
    return problem(
      "'messages' is required: send a non-empty array of {role, content} objects.",
      "missing_required_parameter",
      "messages",
    );
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    return problem(
      "'messages' must be a non-empty array of {role, content} objects.",
      "invalid_type",
      "messages",
    );
  }
  const answered = new Set<string>();
  const open = new Map<string, number>();
  for (const [index, message] of messages.entries()) {
    const param = `messages[${index}]`;
    const found = checkMessage(message, param);
    if (found) return found;
    const item = message as Body;
    if (item.role === "tool") {
      const id = item.tool_call_id as string;
      if (!open.has(id)) {
        return problem(
          `${param} is a tool message for tool_call_id "${id}", but no earlier assistant message has a tool call with that id. Answer only calls the assistant made.`,
          "invalid_value",
          `${param}.tool_call_id`,
        );
      }
      open.delete(id);
      answered.add(id);
    } else {
      const missing = [...open.entries()];
      if (missing.length > 0) {
        return unansweredCalls(missing);
      }
    }
    if (item.role === "assistant" && Array.isArray(item.tool_calls)) {
      for (const call of item.tool_calls as Array<{ id: string }>) open.set(call.id, index);
    }
  }
  const missing = [...open.entries()];
  // The conversation may end on an assistant message with calls only when all are answered.
  return missing.length > 0 ? unansweredCalls(missing) : undefined;
}

function unansweredCalls(missing: Array<[string, number]>): RequestProblem {
  const [, index] = missing[0]!;
  const ids = missing.map(([id]) => `"${id}"`).join(", ");
  return problem(
    `The assistant message messages[${index}] has tool_calls that were not answered: ${ids}. Follow it with one tool message per tool_call_id before any other message.`,
    "invalid_value",
    `messages[${index}].tool_calls`,
  );
}

function checkMessage(message: unknown, param: string): Check {
  if (!isObject(message)) {
    return problem(`${param} must be an object with role and content.`, "invalid_type", param);
  }
  const role = message.role;
  if (typeof role !== "string" || !roles.includes(role)) {
    return problem(
      `${param}.role must be one of ${roles.join(", ")}; got ${describe(role)}.`,
      "invalid_value",
      `${param}.role`,
    );
  }
  const content = message.content;
  const nullable = role !== "system" && role !== "user";
  const absentAllowed = role === "assistant";
  if (content === undefined && !absentAllowed) {
    return problem(
      `${param}.content is required for ${role} messages.`,
      "missing_required_parameter",
      `${param}.content`,
    );
  }
  if (content !== undefined && typeof content !== "string" && !(nullable && content === null)) {
    return problem(
      `${param}.content must be a string${nullable ? " or null" : ""}; got ${describe(content)}.`,
      "invalid_type",
      `${param}.content`,
    );
  }
  if (message.name !== undefined && typeof message.name !== "string") {
    return problem(`${param}.name must be a string.`, "invalid_type", `${param}.name`);
  }
  if (
    role === "tool" &&
    (typeof message.tool_call_id !== "string" || message.tool_call_id === "")
  ) {
    return problem(
      `${param} is a tool message and needs tool_call_id: the id of the assistant tool call it answers.`,
      "missing_required_parameter",
      `${param}.tool_call_id`,
    );
  }
  if (role === "function" && (typeof message.name !== "string" || message.name === "")) {
    return problem(
      `${param} is a function message and needs name: the function whose result it carries.`,
      "missing_required_parameter",
      `${param}.name`,
    );
  }
  if (role === "assistant" && message.tool_calls !== undefined) {
    return checkAssistantToolCalls(message.tool_calls, `${param}.tool_calls`);
  }
  return undefined;
}

function checkAssistantToolCalls(calls: unknown, param: string): Check {
  if (!Array.isArray(calls)) {
    return problem(`${param} must be an array of tool calls.`, "invalid_type", param);
  }
  for (const [index, call] of calls.entries()) {
    const at = `${param}[${index}]`;
    if (
      !isObject(call) ||
      typeof call.id !== "string" ||
      call.id === "" ||
      call.type !== "function" ||
      !isObject(call.function) ||
      typeof call.function.name !== "string" ||
      typeof call.function.arguments !== "string"
    ) {
      return problem(
        `${at} must be {id: string, type: "function", function: {name: string, arguments: string}} (arguments is JSON text).`,
        "invalid_type",
        at,
      );
    }
  }
  return undefined;
}

function checkStreamOptions(options: unknown): Check {
  if (options === undefined) return undefined;
  if (!isObject(options)) {
    return problem("'stream_options' must be an object.", "invalid_type", "stream_options");
  }
  if (options.include_usage !== undefined && typeof options.include_usage !== "boolean") {
    return problem(
      "'stream_options.include_usage' must be a boolean.",
      "invalid_type",
      "stream_options.include_usage",
    );
  }
  return undefined;
}

function checkStop(stop: unknown): Check {
  if (stop === undefined || stop === null || typeof stop === "string") return undefined;
  if (!Array.isArray(stop) || stop.some((item) => typeof item !== "string")) {
    return problem(
      `'stop' must be a string or an array of at most 4 strings; got ${describe(stop)}.`,
      "invalid_type",
      "stop",
    );
  }
  if (stop.length > 4) {
    return problem(
      `'stop' has ${stop.length} sequences; at most 4 are allowed.`,
      "invalid_value",
      "stop",
    );
  }
  return undefined;
}

function checkTools(tools: unknown): Check {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) {
    return problem("'tools' must be an array of function tools.", "invalid_type", "tools");
  }
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const param = `tools[${index}]`;
    if (!isObject(tool) || tool.type !== "function") {
      return problem(
        `${param}.type must be "function"; got ${describe(isObject(tool) ? tool.type : tool)}.`,
        "invalid_value",
        `${param}.type`,
      );
    }
    const definition = tool.function;
    if (!isObject(definition)) {
      return problem(
        `${param}.function must be {name, description?, parameters}.`,
        "invalid_type",
        `${param}.function`,
      );
    }
    if (typeof definition.name !== "string" || !toolNamePattern.test(definition.name)) {
      return problem(
        `${param}.function.name must be 1 to 64 letters, digits, _ or -; got ${describe(definition.name)}.`,
        "invalid_value",
        `${param}.function.name`,
      );
    }
    if (names.has(definition.name)) {
      return problem(
        `${param}.function.name "${definition.name}" is offered twice; tool names must be unique.`,
        "invalid_value",
        `${param}.function.name`,
      );
    }
    names.add(definition.name);
    if (definition.description !== undefined && typeof definition.description !== "string") {
      return problem(
        `${param}.function.description must be a string.`,
        "invalid_type",
        `${param}.function.description`,
      );
    }
    const parameters = definition.parameters;
    if (!isObject(parameters) || (parameters.type !== undefined && parameters.type !== "object")) {
      return problem(
        `${param}.function.parameters must be a JSON Schema object with type "object".`,
        "invalid_type",
        `${param}.function.parameters`,
      );
    }
  }
  return undefined;
}

function checkToolChoice(choice: unknown, tools: unknown): Check {
  if (choice === undefined || choice === "none" || choice === "auto") return undefined;
  const shape = `'tool_choice' must be "none", "auto" or {type: "function", function: {name}}`;
  if (
    !isObject(choice) ||
    choice.type !== "function" ||
    !isObject(choice.function) ||
    typeof choice.function.name !== "string"
  ) {
    return problem(`${shape}; got ${describe(choice)}.`, "invalid_value", "tool_choice");
  }
  const name = choice.function.name;
  const offered = Array.isArray(tools)
    ? tools.map((tool) => (tool as { function: { name: string } }).function.name)
    : [];
  if (!offered.includes(name)) {
    return problem(
      `'tool_choice' names the function "${name}", which is not in 'tools' (offered: ${offered.join(", ") || "none"}).`,
      "invalid_value",
      "tool_choice.function.name",
    );
  }
  return undefined;
}

function checkResponseFormat(format: unknown): Check {
  if (format === undefined) return undefined;
  if (
    !isObject(format) ||
    !["text", "json_object", "json_schema"].includes(format.type as string)
  ) {
    return problem(
      `'response_format.type' must be "text", "json_object" or "json_schema"; got ${describe(isObject(format) ? format.type : format)}.`,
      "invalid_value",
      "response_format.type",
    );
  }
  if (format.type !== "json_schema") return undefined;
  const spec = format.json_schema;
  if (!isObject(spec)) {
    return problem(
      "'response_format.json_schema' is required with type \"json_schema\": {name, schema, strict?}.",
      "missing_required_parameter",
      "response_format.json_schema",
    );
  }
  if (typeof spec.name !== "string" || !toolNamePattern.test(spec.name)) {
    return problem(
      `'response_format.json_schema.name' must be 1 to 64 letters, digits, _ or -; got ${describe(spec.name)}.`,
      "invalid_value",
      "response_format.json_schema.name",
    );
  }
  if (spec.schema !== undefined && !isObject(spec.schema)) {
    return problem(
      `'response_format.json_schema.schema' must be a JSON Schema object; got ${describe(spec.schema)}.`,
      "invalid_type",
      "response_format.json_schema.schema",
    );
  }
  return checkOptionalBoolean(spec, "strict", "response_format.json_schema");
}

function checkExtraBody(body: Body): Check {
  const extra = body.extra_body;
  if (extra !== undefined && !isObject(extra)) {
    return problem("'extra_body' must be an object.", "invalid_type", "extra_body");
  }
  return (
    (extra ? checkProvider(extra.provider, "extra_body.provider") : undefined) ??
    (extra ? checkCompression(extra.compression, "extra_body.compression") : undefined) ??
    checkProvider(body.provider, "provider") ??
    checkCompression(body.compression, "compression")
  );
}

function checkProvider(provider: unknown, param: string): Check {
  if (provider === undefined) return undefined;
  if (!isObject(provider)) {
    return problem(
      `'${param}' must be an object {order?, allow_fallbacks?, require?}.`,
      "invalid_type",
      param,
    );
  }
  return (
    checkStringArray(provider.order, `${param}.order`) ??
    checkStringArray(provider.require, `${param}.require`) ??
    checkOptionalBoolean(provider, "allow_fallbacks", param)
  );
}

function checkCompression(compression: unknown, param: string): Check {
  if (compression === undefined) return undefined;
  if (!isObject(compression)) {
    return problem(
      `'${param}' must be an object {token_limit?, mmr_lambda_text?, mmr_lambda_code?, embedding_provider?}.`,
      "invalid_type",
      param,
    );
  }
  const limit = compression.token_limit;
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) > 0)) {
    return problem(
      `'${param}.token_limit' must be a positive integer; got ${describe(limit)}.`,
      "invalid_value",
      `${param}.token_limit`,
    );
  }
  return (
    checkRange(compression, "mmr_lambda_text", 0, 1, param) ??
    checkRange(compression, "mmr_lambda_code", 0, 1, param) ??
    checkNonEmptyString(compression, "embedding_provider", param)
  );
}

function checkStringArray(value: unknown, param: string): Check {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    return problem(
      `'${param}' must be an array of strings; got ${describe(value)}.`,
      "invalid_type",
      param,
    );
  }
  return undefined;
}

function checkRange(body: Body, key: string, min: number, max: number, parent?: string): Check {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  const param = parent ? `${parent}.${key}` : key;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return problem(
      `'${param}' must be a number from ${min} to ${max}; got ${describe(value)}.`,
      "invalid_type",
      param,
    );
  }
  if (value < min || value > max) {
    return problem(
      `'${param}' must be from ${min} to ${max}; got ${value}.`,
      "invalid_value",
      param,
    );
  }
  return undefined;
}

function checkPositiveInteger(body: Body, key: string): Check {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1) {
    return problem(
      `'${key}' must be a positive integer; got ${describe(value)}.`,
      "invalid_value",
      key,
    );
  }
  return undefined;
}

function checkOptionalString(body: Body, key: string): Check {
  const value = body[key];
  if (value === undefined || typeof value === "string") return undefined;
  return problem(`'${key}' must be a string; got ${describe(value)}.`, "invalid_type", key);
}

function checkNonEmptyString(body: Body, key: string, parent: string): Check {
  const value = body[key];
  if (value === undefined || (typeof value === "string" && value !== "")) return undefined;
  const param = `${parent}.${key}`;
  return problem(
    `'${param}' must be a non-empty string; got ${describe(value)}.`,
    "invalid_type",
    param,
  );
}

function checkOptionalBoolean(body: Body, key: string, parent?: string): Check {
  const value = body[key];
  if (value === undefined || typeof value === "boolean") return undefined;
  const param = parent ? `${parent}.${key}` : key;
  return problem(`'${param}' must be a boolean; got ${describe(value)}.`, "invalid_type", param);
}

function problem(message: string, code: string, param: string | null): RequestProblem {
  return { message, code, param };
}

function isObject(value: unknown): value is Body {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
