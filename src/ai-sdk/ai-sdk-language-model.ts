import type {
  LanguageModelV2,
  LanguageModelV2Content,
  LanguageModelV2FinishReason,
  LanguageModelV2StreamPart,
  LanguageModelV2Usage,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  LanguageModelV4,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";

/**
 * A language model of the AI SDK's provider specification, as any AI SDK
 * provider makes one (`openai("gpt-5")`, `anthropic("claude-sonnet-4-5")`,
 * `createOpenAICompatible({...}).chatModel("...")`): specification `v2`,
 * `v3` or `v4`.
 */
export type AiSdkLanguageModel = LanguageModelV2 | LanguageModelV3 | LanguageModelV4;

/**
 * The call options the adapter builds: text, reasoning, tool calls and
 * tool results only, which every specification version reads alike.
 */
export type SpecCallOptions = LanguageModelV3CallOptions;

/** One part of a whole answer, of any specification version. */
export type SpecContent = LanguageModelV2Content | LanguageModelV3Content | LanguageModelV4Content;

/** One part of a streamed answer, of any specification version. */
export type SpecStreamPart =
  | LanguageModelV2StreamPart
  | LanguageModelV3StreamPart
  | LanguageModelV4StreamPart;

/** Token counts: flat in `v2`, split by kind from `v3` on. */
export type SpecUsage = LanguageModelV2Usage | LanguageModelV3Usage | LanguageModelV4Usage;

/** Why the answer ended: a string in `v2`, `{ unified, raw }` from `v3` on. */
export type SpecFinishReason =
  | LanguageModelV2FinishReason
  | LanguageModelV3FinishReason
  | LanguageModelV4FinishReason;

/** What `doGenerate` answers, in the fields the adapter reads. */
export interface SpecGenerateResult {
  content: SpecContent[];
  finishReason: SpecFinishReason;
  usage: SpecUsage;
  response?: { id?: string; timestamp?: Date; modelId?: string } | undefined;
}

/** What `doStream` answers, in the fields the adapter reads. */
export interface SpecStreamResult {
  stream: ReadableStream<SpecStreamPart>;
}

/**
 * The two calls of a model, typed over every version: the options built
 * here are read the same by each, and the answers differ only in the
 * usage and finish reason, which the adapter reads in either form.
 */
export function specCalls(model: AiSdkLanguageModel): {
  generate(options: SpecCallOptions): PromiseLike<SpecGenerateResult>;
  stream(options: SpecCallOptions): PromiseLike<SpecStreamResult>;
} {
  const calls = model as unknown as {
    doGenerate(options: SpecCallOptions): PromiseLike<SpecGenerateResult>;
    doStream(options: SpecCallOptions): PromiseLike<SpecStreamResult>;
  };
  return {
    generate: (options) => calls.doGenerate(options),
    stream: (options) => calls.doStream(options),
  };
}
