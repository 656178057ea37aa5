import type { ChatMessage } from "../../clients/reasoner/chat-types.js";
import type { ReceivedChatRequest } from "./scripted-answer.js";

/** One tool call of the current task and the result the conversation carries for it. */
export interface ToolStep {
  name: string;
  /** Parsed arguments; the raw text when it is not JSON. */
  arguments: unknown;
  /** Parsed result; the raw text when it is not JSON. */
  result: unknown;
  /** The `error` code when the result is a JSON object with a top-level `error` string. */
  error?: string;
  /** The note the person gave with their approval (`person_note`), as the agent quoted it. */
  personNote?: string;
  /**
   * The person changed the call before approving it (`edited_by_person`):
   * `arguments` and `result` are then those of what ran, and these the
   * arguments the model asked for.
   */
  askedArguments?: unknown;
}

/** What a scripted model reads from a request. */
export interface Conversation {
  /** Text of the first user message. */
  firstUserText: string;
  /** Text of the last user message: the task being worked on (what `auto` picks a scenario by). */
  task: string;
  /** Text of every user message, oldest first: the conversation's turns. */
  userTexts: string[];
  /** Tool calls made since the last user message, with their results, in order. */
  steps: ToolStep[];
  /** Names of the tools the request offers. */
  offeredTools: string[];
}

/** Reads the task, the tool steps taken since it and the offered tools. */
export function readConversation(request: ReceivedChatRequest): Conversation {
  const messages = request.messages;
  let lastUser = -1;
  for (const [index, message] of messages.entries()) {
    if (message.role === "user") lastUser = index;
  }
  const firstUser = messages.find((message) => message.role === "user");
  return {
    firstUserText: firstUser?.content ?? "",
    task: lastUser >= 0 ? (messages[lastUser]!.content as string) : "",
    userTexts: messages
      .filter((message) => message.role === "user")
      .map((message) => (typeof message.content === "string" ? message.content : "")),
    steps: readSteps(messages.slice(lastUser + 1)),
    offeredTools: (request.tools ?? []).map((tool) => tool.function.name),
  };
}

function readSteps(messages: ChatMessage[]): ToolStep[] {
  const calls = new Map<string, { name: string; arguments: unknown }>();
  const steps: ToolStep[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        calls.set(call.id, {
          name: call.function.name,
          arguments: parseJson(call.function.arguments),
        });
      }
    } else if (message.role === "tool") {
      const call = calls.get(message.tool_call_id);
      steps.push(step(call?.name ?? "unknown", call?.arguments, message.content));
    } else if (message.role === "function") {
      steps.push(step(message.name, undefined, message.content ?? ""));
    }
  }
  return steps;
}

function step(name: string, asked: unknown, content: string | null): ToolStep {
  const message = parseJson(content ?? "");
  const fields = typeof message === "object" && message !== null ? message : {};
  const note = "person_note" in fields ? fields.person_note : undefined;
  // A call the person changed: what ran, and its result, are what the model goes on from.
  const edited = "edited_by_person" in fields && fields.edited_by_person === true;
  const args = edited && "ran_arguments" in fields ? fields.ran_arguments : asked;
  // A call approved with a note or changed: the agent wraps its result as {result, ...}.
  const result =
    (typeof note === "string" || edited) && "result" in fields ? fields.result : message;
  const error =
    typeof result === "object" && result !== null && "error" in result
      ? (result as { error: unknown }).error
      : undefined;
  return {
    name,
    arguments: args,
    result,
    ...(typeof error === "string" ? { error } : {}),
    ...(typeof note === "string" ? { personNote: note } : {}),
    ...(edited ? { askedArguments: asked } : {}),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
