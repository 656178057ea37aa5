import { conformingValue } from "./conforming-value.js";
import type { ReceivedChatRequest } from "./scripted-answer.js";
import type { RequestProblem } from "./validate-chat-request.js";

/**
 * A request the simulator cannot answer as asked: a schema that is not
 * valid, or that no generated value meets. Answered with 400 and
 * `problem`, as providers refuse a schema they cannot honour.
 */
export class UnanswerableRequestError extends Error {
  readonly problem: RequestProblem;

  constructor(problem: RequestProblem) {
    super(problem.message);
    this.name = "UnanswerableRequestError";
    this.problem = problem;
  }
}

/**
 * The final answer's content as `response_format` asks for it, or
 * `undefined` when it asks for text: for `json_schema`, a value generated
 * from the schema (see {@link conformingValue}); for `json_object` (or a
 * `json_schema` without a schema), `{"answer": text}`.
 *
 * @throws UnanswerableRequestError when the schema is invalid or cannot be met.
 */
export function formattedContent(
  request: ReceivedChatRequest,
  text: string | null,
): string | undefined {
  const format = request.response_format;
  if (format?.type === "json_schema" && format.json_schema.schema !== undefined) {
    const generated = conformingValue(format.json_schema.schema);
    if (!generated.ok) {
      throw new UnanswerableRequestError({
        message: `Invalid schema for response_format "${format.json_schema.name}": ${generated.problem}.`,
        code: "invalid_schema",
        param: "response_format.json_schema.schema",
      });
    }
    return JSON.stringify(generated.value);
  }
  if (format?.type === "json_schema" || format?.type === "json_object") {
    return JSON.stringify({ answer: text ?? "" });
  }
  return undefined;
}

/**
 * Arguments for a call of `name` that its `parameters` schema accepts,
 * as JSON text: what a model forced to call the tool sends.
 *
 * @throws UnanswerableRequestError when the schema is invalid or cannot be met.
 */
export function forcedArgumentText(request: ReceivedChatRequest, name: string): string {
  const tools = request.tools ?? [];
  const index = tools.findIndex((tool) => tool.function.name === name);
  const parameters = tools[index]?.function.parameters ?? { type: "object" };
  const generated = conformingValue(parameters);
  if (!generated.ok) {
    throw new UnanswerableRequestError({
      message: `Invalid schema for function "${name}": ${generated.problem}.`,
      code: "invalid_schema",
      param: `tools[${index}].function.parameters`,
    });
  }
  return JSON.stringify(generated.value);
}
