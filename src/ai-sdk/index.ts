/**
 * `switchyard-agents/ai-sdk`: any AI SDK provider as the agent's model.
 * `aiSdkModel(languageModel)` wraps a language model of the AI SDK's
 * provider specification (`@ai-sdk/openai`, `@ai-sdk/anthropic`,
 * `@ai-sdk/google`, `@ai-sdk/openai-compatible`, ...) as a `Model`. Needs
 * `@ai-sdk/provider`, which `import("switchyard-agents")` never loads.
 *
 * @module switchyard-agents/ai-sdk
 */
export { type AiSdkLanguageModel, type AiSdkModelOptions, aiSdkModel } from "./ai-sdk-model.js";
export { approvalGate } from "./approval-gate.js";
