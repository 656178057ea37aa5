import { describeValue, isPlainObject } from "../clients/reasoner/validation-checks.js";
import { buildOnFirstUse } from "../internal/build-on-first-use.js";
import { findTransportOptionProblems } from "../internal/http/transport-options.js";
import { loadZod } from "../internal/load-zod.js";
import type { AiSdkModelOptions } from "./ai-sdk-model-options.js";

const optionNames = [
  "timeoutMs",
  "maxRetries",
  "initialRetryDelayMs",
  "maxRetryDelayMs",
  "headers",
  "logger",
  "providerOptions",
] as const satisfies readonly (keyof AiSdkModelOptions)[];

/** Built on first use, so importing the subpath does not load zod. */
const providerOptionsSchema = buildOnFirstUse(() => {
  const { z } = loadZod();
  return z.record(z.string(), z.record(z.string(), z.unknown())).optional();
});

/**
 * Every problem with what `aiSdkModel` was given, one sentence each: a
 * language model that is not one (a model id string, an object without
 * `doGenerate` and `doStream`) or of a specification it does not read,
 * options it does not have, and option values out of range (the transport
 * options' own check, shared with the clients).
 */
export function findAiSdkModelProblems(languageModel: unknown, options: unknown): string[] {
  return [...findModelProblems(languageModel), ...findOptionProblems(options)];
}

function findModelProblems(languageModel: unknown): string[] {
  const isModel =
    isPlainObject(languageModel) &&
    typeof languageModel.doGenerate === "function" &&
    typeof languageModel.doStream === "function";
  if (!isModel) {
    return [
      `aiSdkModel needs an AI SDK language model object, such as openai("gpt-5") from @ai-sdk/openai; got ${describeValue(languageModel)}`,
    ];
  }
  const version = languageModel.specificationVersion;
  if (version !== "v2" && version !== "v3" && version !== "v4") {
    return [
      `aiSdkModel takes language models of specification v2, v3 or v4; this one is ${describeValue(version)}: use a provider package of AI SDK 5 or later`,
    ];
  }
  return [];
}

function findOptionProblems(options: unknown): string[] {
  if (!isPlainObject(options)) {
    return [`aiSdkModel options must be an object; got ${describeValue(options)}`];
  }
  const problems = Object.keys(options)
    .filter((key) => !(optionNames as readonly string[]).includes(key))
    .map(
      (key) =>
        `${key} is not an option of aiSdkModel (set the provider's own settings where its model is made); the options are ${optionNames.join(", ")}`,
    );
  problems.push(...findTransportOptionProblems(options));
  if (!providerOptionsSchema().safeParse(options.providerOptions).success) {
    problems.push(
      'providerOptions must be an object of provider names to objects of settings, e.g. { openai: { reasoningEffort: "low" } }',
    );
  }
  return problems;
}
