import { ConfigurationError } from "../../errors/configuration-error.js";
import type { ChatRequest } from "./chat-types.js";
import { checkMessages } from "./validate-chat-messages.js";
import { checkToolsAndChoice } from "./validate-chat-tools.js";
import { checkExtraBody } from "./validate-extra-body.js";
import { checkResponseFormat } from "./validate-response-format.js";
import {
  checkNonEmptyString,
  checkNumberInRange,
  checkPositiveInteger,
  describeValue,
  isPlainObject,
} from "./validation-checks.js";

/** How `extra_body` travels: as a literal object, or with its keys at the top level. */
export type ExtraBodyMode = "extra_body" | "merge";

/** Options of {@link validateChatRequest}. */
export interface ValidateChatRequestOptions {
  /** In `merge` mode an `extra_body` key may not collide with a top-level parameter. @default "extra_body" */
  extraBodyMode?: ExtraBodyMode;
}

const setByMethod = ["stream", "stream_options"] as const;

/**
 * Every problem of a chat request, one sentence each (`temperature 3 is
 * outside 0..2`); empty when the request may be sent. Checks the parameters
 * of docs/contract.md §1; other keys pass through unchecked.
 */
export function findChatRequestProblems(
  request: unknown,
  options: ValidateChatRequestOptions = {},
): string[] {
  const problems: string[] = [];
  if (!isPlainObject(request)) {
    problems.push(`the chat request ${describeValue(request)} is not an object with messages`);
    return problems;
  }
  checkMessages(problems, request.messages);
  checkNonEmptyString(problems, "model", request.model);
  checkToolsAndChoice(problems, request.tools, request.tool_choice);
  checkNumberInRange(problems, "temperature", request.temperature, 0, 2);
  checkNumberInRange(problems, "top_p", request.top_p, 0, 1);
  checkPositiveInteger(problems, "n", request.n);
  checkPositiveInteger(problems, "max_tokens", request.max_tokens);
  checkStop(problems, request.stop);
  checkNumberInRange(problems, "presence_penalty", request.presence_penalty, -2, 2);
  checkNumberInRange(problems, "frequency_penalty", request.frequency_penalty, -2, 2);
  checkResponseFormat(problems, request.response_format);
  checkExtraBody(problems, request.extra_body);
  for (const key of setByMethod) {
    if (request[key] !== undefined) {
      problems.push(
        `${key} is set by the method called: use stream() for a streamed answer and complete() for a whole one`,
      );
    }
  }
  if (options.extraBodyMode === "merge" && isPlainObject(request.extra_body)) {
    for (const key of Object.keys(request.extra_body)) {
      if (
        request[key] !== undefined ||
        key === "messages" ||
        (setByMethod as readonly string[]).includes(key)
      ) {
        problems.push(
          `extra_body.${key} would overwrite the top-level ${key} in merge mode; set it in one place`,
        );
      }
    }
  }
  return problems;
}

/**
 * Throws a ConfigurationError naming every bad parameter of a chat request,
 * its value and the allowed range, before anything is sent. Hand-written
 * checks: cheap enough to run on every agent step.
 *
 * @example
 * ```ts
 * validateChatRequest({ messages: [{ role: "user", content: "hi" }], temperature: 3 });
 * // ConfigurationError: temperature 3 is outside 0..2
 * ```
 */
export function validateChatRequest(
  request: ChatRequest,
  options: ValidateChatRequestOptions = {},
): void {
  const problems = findChatRequestProblems(request, options);
  if (problems.length > 0) throw new ConfigurationError(problems);
}

function checkStop(problems: string[], stop: unknown): void {
  if (stop === undefined || typeof stop === "string") return;
  if (!Array.isArray(stop)) {
    problems.push(`stop ${describeValue(stop)} is not a string or an array of strings`);
    return;
  }
  if (stop.length > 4) problems.push(`stop has ${stop.length} entries, at most 4`);
  if (!stop.every((entry) => typeof entry === "string")) {
    problems.push(`stop ${describeValue(stop)} is not an array of strings`);
  }
}
