import type {
  JSONSchema7,
  LanguageModelV3ToolChoice,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import type { ModelRequest, ModelResponseFormat } from "../agent/model.js";
import type { ModelToolChoice } from "../agent/model-message.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { SpecCallOptions } from "./ai-sdk-language-model.js";
import { toSpecPrompt } from "./to-spec-prompt.js";

/** The model a request goes to, as the error for a different `model` names it. */
export interface ModelIdentity {
  provider: string;
  modelId: string;
}

/**
 * A Switchyard request as the specification's call options: the prompt,
 * the tools (their JSON Schema as the input schema), the tool choice, the
 * sampling settings the specification has (`max_tokens` is
 * `maxOutputTokens`, `stop` is `stopSequences`) and the response format
 * (`json_schema` and `json_object` are `json`, with and without a schema).
 * `n` needs no mapping: the agent asks for one answer. A `model` other than
 * the AI SDK model's own is a mistake: the model is chosen when it is made.
 */
export function toSpecCallOptions(
  request: ModelRequest,
  identity: ModelIdentity,
  providerOptions: SharedV3ProviderOptions | undefined,
): SpecCallOptions {
  if (request.model !== undefined && request.model !== identity.modelId) {
    throw new ConfigurationError(
      `The request names the model "${request.model}", but this AI SDK model is ${identity.provider} "${identity.modelId}": choose the model where the AI SDK model is made (e.g. provider("${request.model}")), and leave requestOptions.model unset.`,
    );
  }
  const options: SpecCallOptions = { prompt: toSpecPrompt(request.messages) };
  if (request.tools && request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.function.name,
      description: tool.function.description,
      inputSchema: tool.function.parameters as JSONSchema7,
    }));
  }
  if (request.tool_choice !== undefined) options.toolChoice = toToolChoice(request.tool_choice);
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.top_p !== undefined) options.topP = request.top_p;
  if (request.max_tokens !== undefined) options.maxOutputTokens = request.max_tokens;
  if (request.presence_penalty !== undefined) options.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined) options.frequencyPenalty = request.frequency_penalty;
  if (request.stop !== undefined) {
    options.stopSequences = typeof request.stop === "string" ? [request.stop] : [...request.stop];
  }
  if (request.response_format !== undefined) {
    options.responseFormat = toResponseFormat(request.response_format);
  }
  if (providerOptions !== undefined) options.providerOptions = providerOptions;
  return options;
}

function toToolChoice(choice: ModelToolChoice): LanguageModelV3ToolChoice {
  if (choice === "none" || choice === "auto") return { type: choice };
  return { type: "tool", toolName: choice.function.name };
}

function toResponseFormat(
  format: ModelResponseFormat,
): NonNullable<SpecCallOptions["responseFormat"]> {
  if (format.type === "text") return { type: "text" };
  if (format.type === "json_object") return { type: "json" };
  const { name, description, schema } = format.json_schema;
  return {
    type: "json",
    schema: schema as JSONSchema7,
    name,
    ...(description !== undefined ? { description } : {}),
  };
}
