import { ConfigurationError } from "../errors/configuration-error.js";
import type { PrepareStep } from "./prepare-step.js";
import type { RunStep, ToolCallRecord } from "./run-result.js";
import { readStopWhen, type StopCondition, type StopWhen } from "./stop-conditions.js";
import {
  type OutputSchema,
  type ResolvedOutput,
  resolveOutputSchema,
} from "./structured-output.js";
import {
  readTracing,
  type TracingOptions,
  type TracingSettings,
} from "./tracing/tracing-options.js";

/**
 * The agent options that steer the loop: structured output, loop control and
 * callbacks. `ToolName` is the names of the agent's tools.
 */
export interface AgentLoopOptions<
  Schema extends OutputSchema | undefined = undefined,
  ToolName extends string = string,
> {
  /**
   * Ask for a structured answer: each model call asks for JSON matching this
   * schema (`response_format`), the final answer is parsed and validated,
   * and `result.output` is the parsed value, typed from the schema. An answer
   * that does not parse or validate is sent back with the problems, up to
   * `outputRetries` times; then the run fails with `InvalidOutputError`.
   * A zod 4 or zod 3 schema or a JSON Schema, describing an object.
   *
   * @example
   * const agent = new Agent({
   *   model,
   *   tools: [listOrders],
   *   output: z.object({ total: z.number(), byStatus: z.record(z.string(), z.number()) }),
   * });
   * const result = await agent.run("Count the orders by status");
   * if (result.status === "completed") console.log(result.output?.total);
   */
  output?: Schema;
  /**
   * How many times an answer that does not match `output` is sent back to
   * the model to correct (each is a model call, within `maxSteps`).
   * @default 2
   */
  outputRetries?: number | undefined;
  /**
   * Ends the run after a step whose tools ran, when a condition holds
   * (status `completed`; with `output`, there is then no output). An array
   * means any of them. `maxSteps` still bounds the run. A condition naming
   * a tool the agent does not have (`hasToolCall("file_reprot")`) is a type
   * error.
   *
   * @example
   * stopWhen: [hasToolCall("file_report"), stepCountIs(5)]
   */
  stopWhen?: StopWhen<NoInfer<ToolName>> | undefined;
  /**
   * Called before each model call: may change the request options, the tools
   * offered or the messages sent for that call only. See `PrepareStep`.
   *
   * @example
   * // A cheaper model for the first, exploratory step.
   * prepareStep: ({ stepNumber }) =>
   *   stepNumber === 1 ? { requestOptions: { model: "small-model" } } : undefined,
   */
  prepareStep?: PrepareStep | undefined;
  /**
   * Called when a step ended and its tool messages are in the conversation
   * (as the `step-finish` event), awaited before the next model call. What
   * it throws is logged and otherwise ignored.
   *
   * @example
   * onStepFinish: (step) => metrics.count("agent.step", { tools: step.toolCalls.length }),
   */
  onStepFinish?: ((step: RunStep) => void | Promise<void>) | undefined;
  /**
   * Called as each tool call settles, whatever its outcome (as the
   * `tool-result` event; also for a call left `awaiting_approval`). Awaited;
   * what it throws is logged and otherwise ignored.
   *
   * @example
   * onToolCallSettled: (call) => audit.write({ tool: call.toolName, status: call.status }),
   */
  onToolCallSettled?:
    | ((toolCall: ToolCallRecord, context: { stepNumber: number }) => void | Promise<void>)
    | undefined;
  /**
   * Trace each run with OpenTelemetry, following the GenAI semantic
   * conventions: an `invoke_agent` span per run, `chat {model}` per model
   * call, `execute_tool {name}` per tool call and `await_approval {name}` per
   * approval wait. `true` uses the global tracer provider; or give
   * `{ tracer, recordContent }`. Needs `@opentelemetry/api` installed (an
   * optional peer dependency, loaded only when tracing is on). Message and
   * argument content only with `recordContent`, and secrets never.
   * @default false
   * @example
   * new Agent({ model, tools, tracing: { tracer: trace.getTracer("orders-app"), recordContent: false } });
   */
  tracing?: boolean | TracingOptions | undefined;
}

/** The loop options, checked. */
export interface LoopSettings {
  output: ResolvedOutput | undefined;
  outputRetries: number;
  stopWhen: readonly StopCondition<string>[];
  prepareStep: PrepareStep | undefined;
  onStepFinish: ((step: RunStep) => void | Promise<void>) | undefined;
  onToolCallSettled:
    | ((toolCall: ToolCallRecord, context: { stepNumber: number }) => void | Promise<void>)
    | undefined;
  tracing: TracingSettings | undefined;
}

/** The names of the loop options, for the unknown-option check. */
export const loopOptionNames = [
  "output",
  "outputRetries",
  "stopWhen",
  "prepareStep",
  "onStepFinish",
  "onToolCallSettled",
  "tracing",
] as const;

/** Checks the loop options, adding each problem to `problems`. */
export function resolveLoopOptions(
  options: AgentLoopOptions<OutputSchema | undefined>,
  problems: string[],
): LoopSettings {
  const output = readOutput(options.output, problems);
  const outputRetries = readOutputRetries(options.outputRetries, problems);
  const stopWhen = readStopWhen(options.stopWhen, problems);
  for (const name of ["prepareStep", "onStepFinish", "onToolCallSettled"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      problems.push(`${name} must be a function when given.`);
    }
  }
  return {
    output,
    outputRetries,
    stopWhen,
    prepareStep: options.prepareStep,
    onStepFinish: options.onStepFinish,
    onToolCallSettled: options.onToolCallSettled,
    tracing: readTracing(options.tracing, problems),
  };
}

/** An `output` schema converted, or a problem; `undefined` when none is given. */
export function readOutput(schema: unknown, problems: string[]): ResolvedOutput | undefined {
  if (schema === undefined) return undefined;
  try {
    return resolveOutputSchema(schema);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

/** `outputRetries`: a whole number from 0, 2 by default. */
export function readOutputRetries(value: unknown, problems: string[]): number {
  if (value === undefined) return 2;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    problems.push(
      `outputRetries must be a whole number from 0; got ${JSON.stringify(value) ?? String(value)}.`,
    );
    return 2;
  }
  return value;
}

/** The loop settings of one run: the agent's, with the run's `output` and `stopWhen` over them. */
export function resolveRunLoopOverrides<Settings extends LoopSettings>(
  settings: Settings,
  overrides: { output?: unknown; stopWhen?: unknown },
): Settings {
  if (overrides.output === undefined && overrides.stopWhen === undefined) return settings;
  const problems: string[] = [];
  const output = readOutput(overrides.output, problems) ?? settings.output;
  const stopWhen =
    overrides.stopWhen === undefined
      ? settings.stopWhen
      : readStopWhen(overrides.stopWhen, problems);
  if (problems.length > 0) throw new ConfigurationError(problems);
  return { ...settings, output, stopWhen };
}
