import { ConfigurationError } from "../errors/configuration-error.js";
import type { AnyTool } from "../tools/tool.js";
import type { ModelRequest, ModelResponseFormat } from "./model.js";
import type { ModelMessage, ModelToolDefinition } from "./model-message.js";
import type { RunStep } from "./run-result.js";

/** Request fields sent on every model call besides the conversation and the tools. */
export type AgentRequestOptions = Omit<ModelRequest, "messages" | "tools">;

/**
 * The settings a step's request is made from (`AgentSettings` has them);
 * named here so this file does not import the options that import it.
 */
export interface StepRequestSettings {
  tools: ReadonlyMap<string, AnyTool>;
  toolDefinitions: readonly ModelToolDefinition[];
  requestOptions: AgentRequestOptions;
  prepareStep: PrepareStep | undefined;
  output: { responseFormat: ModelResponseFormat } | undefined;
}

/** What `prepareStep` is shown before a model call. */
export interface PrepareStepContext {
  /** The step about to be made, from 1 (counted over the whole run). */
  stepNumber: number;
  /** The steps of this `run()` or `resume()` so far. */
  steps: readonly RunStep[];
  /** The conversation as it would be sent. Do not change it: return `messages` instead. */
  messages: readonly ModelMessage[];
  /** The names of the agent's tools. */
  toolNames: readonly string[];
}

/** What `prepareStep` may change for one model call; what it leaves out stays as configured. */
export interface StepPreparation {
  /** Request fields for this call, over the agent's `requestOptions` (e.g. `model`, `temperature`, `tool_choice`). */
  requestOptions?: AgentRequestOptions | undefined;
  /**
   * The names of the tools offered for this call, a subset of the agent's.
   * A call to a tool not offered is answered as an unknown tool and not run.
   */
  activeTools?: readonly string[] | undefined;
  /**
   * The messages sent for this call instead of the conversation (e.g. a
   * shortened history). The run's own conversation is not changed.
   */
  messages?: readonly ModelMessage[] | undefined;
}

/**
 * Called before each model call; returns changes for that call only, or
 * nothing. Throwing (or returning tool names the agent lacks) ends the run
 * `failed` with that error.
 *
 * @example
 * // Offer the destructive tool only after the model has listed what it would delete.
 * prepareStep: ({ steps }) =>
 *   steps.some((step) => step.toolCalls.some((call) => call.toolName === "list_callbacks"))
 *     ? undefined
 *     : { activeTools: ["list_callbacks"] },
 */
export type PrepareStep = (
  context: PrepareStepContext,
) => StepPreparation | undefined | Promise<StepPreparation | undefined>;

/** One step's request parts after `prepareStep`. */
export interface PreparedStep {
  messages: readonly ModelMessage[];
  tools: ReadonlyMap<string, AnyTool>;
  requestOptions: AgentRequestOptions;
}

const settableKeys = new Set(["requestOptions", "activeTools", "messages"]);

/**
 * Applies what `prepareStep` returned to the step's defaults. Throws a
 * ConfigurationError naming each problem of the preparation.
 */
export function applyStepPreparation(
  preparation: StepPreparation | undefined,
  defaults: PreparedStep,
): PreparedStep {
  if (preparation === undefined) return defaults;
  const problems: string[] = [];
  if (typeof preparation !== "object" || preparation === null) {
    throw new ConfigurationError(
      "prepareStep must return an object ({ requestOptions?, activeTools?, messages? }) or nothing.",
    );
  }
  for (const key of Object.keys(preparation)) {
    if (!settableKeys.has(key)) {
      problems.push(
        `prepareStep returned an unknown field "${key}"; it may set requestOptions, activeTools and messages.`,
      );
    }
  }
  const { requestOptions, activeTools, messages } = preparation;
  let tools = defaults.tools;
  if (activeTools !== undefined) {
    if (!Array.isArray(activeTools)) {
      problems.push("prepareStep's activeTools must be an array of tool names.");
    } else {
      const unknown = activeTools.filter((name) => !defaults.tools.has(name));
      if (unknown.length > 0) {
        problems.push(
          `prepareStep's activeTools names tools the agent does not have: ${unknown.join(", ")}; its tools: ${[...defaults.tools.keys()].join(", ") || "none"}.`,
        );
      }
      const active = new Set(activeTools);
      tools = new Map([...defaults.tools].filter(([name]) => active.has(name)));
    }
  }
  if (messages !== undefined && (!Array.isArray(messages) || messages.length === 0)) {
    problems.push("prepareStep's messages must be a non-empty array of messages.");
  }
  if (
    requestOptions !== undefined &&
    (typeof requestOptions !== "object" || requestOptions === null || Array.isArray(requestOptions))
  ) {
    problems.push("prepareStep's requestOptions must be an object of request fields.");
  }
  for (const key of ["messages", "tools", "stream"]) {
    if (requestOptions && key in requestOptions) {
      problems.push(
        `prepareStep's requestOptions.${key} is set by the agent; use ${key === "tools" ? "activeTools" : key === "messages" ? "messages" : "the agent's stream() or run()"} instead.`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return {
    messages: messages ?? defaults.messages,
    tools,
    requestOptions: requestOptions
      ? { ...defaults.requestOptions, ...requestOptions }
      : defaults.requestOptions,
  };
}

/**
 * The request of one step, and the tools its calls may use: the agent's
 * settings, then what `prepareStep` returned, then the `output` schema's
 * `response_format`. Rejects with what `prepareStep` threw or with a
 * ConfigurationError for a preparation that cannot be applied.
 */
export async function prepareStepRequest(
  settings: StepRequestSettings,
  context: Omit<PrepareStepContext, "toolNames">,
): Promise<StepRequest> {
  if (!settings.prepareStep) return stepRequest(settings, context.messages);
  const preparation = await settings.prepareStep({
    ...context,
    toolNames: [...settings.tools.keys()],
  });
  return requestOf(
    settings,
    applyStepPreparation(preparation, unpreparedStep(settings, context.messages)),
  );
}

/** The request of one step of an agent without `prepareStep`: its settings as they are. */
export function stepRequest(
  settings: StepRequestSettings,
  messages: readonly ModelMessage[],
): StepRequest {
  return requestOf(settings, unpreparedStep(settings, messages));
}

/** A step as the agent's settings make it, before any `prepareStep`. */
function unpreparedStep(
  settings: StepRequestSettings,
  messages: readonly ModelMessage[],
): PreparedStep {
  return { messages, tools: settings.tools, requestOptions: settings.requestOptions };
}

/** A step's request and the tools its calls may use. */
export interface StepRequest {
  request: ModelRequest;
  tools: ReadonlyMap<string, AnyTool>;
}

function requestOf(settings: StepRequestSettings, step: PreparedStep): StepRequest {
  const definitions =
    step.tools === settings.tools
      ? settings.toolDefinitions
      : settings.toolDefinitions.filter((definition) => step.tools.has(definition.function.name));
  const request: ModelRequest = {
    ...step.requestOptions,
    ...(settings.output ? { response_format: settings.output.responseFormat } : {}),
    messages: [...step.messages],
    ...(definitions.length > 0 ? { tools: definitions as ModelToolDefinition[] } : {}),
  };
  return { request, tools: step.tools };
}
