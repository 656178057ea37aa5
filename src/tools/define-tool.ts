import type { $ZodType, output as ZodOutput } from "zod/v4/core";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { JsonSchema } from "./json-schema.js";
import type {
  ActionDescription,
  NeedsApproval,
  ReconciledCall,
  Tool,
  ToolContext,
  ToolTarget,
} from "./tool.js";
import { findToolNameProblem } from "./tool-name.js";
import { type ResolvedToolParameters, resolveToolParameters } from "./tool-parameters.js";
import { findTimeoutProblem } from "./tool-timeout.js";
import type { Zod3Schema } from "./zod-schema.js";

/** What `defineTool` takes besides `parameters`. */
export interface ToolDefinition<Args, Result> {
  /** Letters, digits, `_` and `-`, 1 to 64 characters; unique within an agent. */
  name: string;
  /** Tells the model what the tool does and when to use it. */
  description: string;
  /** Runs the tool with parsed, validated arguments. Its result is sent to the model as JSON. */
  execute: (args: Args, context: ToolContext) => Result | Promise<Result>;
  /**
   * Whether a human must approve a call before it runs, by default: a
   * boolean, or a function of the arguments. The agent's `approvalPolicy`
   * rules decide over it.
   * @default false
   */
  needsApproval?: NeedsApproval<Args> | undefined;
  /**
   * True when the tool only reads and changes nothing, so a durable run
   * need not record that its calls started (see `Tool.readOnly`).
   * @default false
   */
  readOnly?: boolean | undefined;
  /**
   * True when a call may destroy or overwrite what cannot be restored,
   * false when it only adds (see `Tool.destructive`).
   * @default absent: a tool that asks by default counts as destructive
   */
  destructive?: boolean | undefined;
  /**
   * True when calling the tool again with the same arguments changes
   * nothing more (see `Tool.idempotent`).
   * @default false
   */
  idempotent?: boolean | undefined;
  /**
   * Time one call of this tool may take before its signal fires and the
   * model is told it timed out. Overrides the agent's `toolTimeoutMs` for
   * this tool, longer or shorter.
   * @default the agent's `toolTimeoutMs`
   * @example
   * defineTool({ name: "export_orders", timeoutMs: 300_000, ... }) // a slow export gets 5 minutes
   */
  timeoutMs?: number | undefined;
  /**
   * Where the calls act (service, account, sandbox or production): named in
   * the approval question and part of the fingerprint an approval binds to.
   */
  target?: ToolTarget | undefined;
  /**
   * How to learn from the service the outcome of a call interrupted after
   * it started, and finish it safely (see `Tool.reconcile`); without it such
   * a call is reported as of unknown outcome.
   */
  reconcile?:
    | ((args: Args, context: ToolContext) => Promise<ReconciledCall<Result> | undefined>)
    | undefined;
  /** Words for the approver; when absent a generic description lists the arguments. */
  describeAction?:
    | ((args: Args, context: ToolContext) => ActionDescription | Promise<ActionDescription>)
    | undefined;
}

/**
 * Defines a tool the model can call. `parameters` is a zod 4 schema, a zod 3
 * schema or a JSON Schema object, describing an object. Its JSON Schema is
 * computed here, once; the model's arguments are checked against it before
 * `execute` runs.
 *
 * @throws ConfigurationError listing every problem: a bad name, a missing
 * description or `execute`, parameters that are not an object schema.
 *
 * @example
 * const listOrders = defineTool({
 *   name: "list_orders",
 *   description: "Lists orders, newest first.",
 *   parameters: z.object({ limit: z.number().int().min(1).max(100) }),
 *   execute: ({ limit }) => client.orders.list({ limit }),
 * });
 */
export function defineTool<Schema extends $ZodType, Result, Name extends string = string>(
  definition: ToolDefinition<ZodOutput<Schema>, Result> & { parameters: Schema; name: Name },
): Tool<ZodOutput<Schema>, Result, Name>;
export function defineTool<Schema extends Zod3Schema, Result, Name extends string = string>(
  definition: ToolDefinition<Schema["_output"], Result> & { parameters: Schema; name: Name },
): Tool<Schema["_output"], Result, Name>;
export function defineTool<
  Args = Record<string, unknown>,
  Result = unknown,
  Name extends string = string,
>(
  definition: ToolDefinition<Args, Result> & { parameters: JsonSchema; name: Name },
): Tool<Args, Result, Name>;
export function defineTool(
  definition: ToolDefinition<unknown, unknown> & { parameters: unknown },
): Tool<unknown, unknown> {
  const problems: string[] = [];
  const nameProblem = findToolNameProblem(definition.name);
  if (nameProblem) problems.push(nameProblem);
  const name = typeof definition.name === "string" ? definition.name : "(unnamed)";
  if (typeof definition.description !== "string" || definition.description.trim() === "") {
    problems.push(
      `Tool "${name}": description must be a non-empty string telling the model what the tool does.`,
    );
  }
  if (typeof definition.execute !== "function") {
    problems.push(`Tool "${name}": execute must be a function.`);
  }
  const {
    needsApproval = false,
    describeAction,
    readOnly = false,
    destructive,
    idempotent = false,
    timeoutMs,
    target,
  } = definition;
  if (typeof needsApproval !== "boolean" && typeof needsApproval !== "function") {
    problems.push(
      `Tool "${name}": needsApproval must be a boolean or a function of the arguments.`,
    );
  }
  if (typeof readOnly !== "boolean") {
    problems.push(`Tool "${name}": readOnly must be true or false when given.`);
  }
  if (destructive !== undefined && typeof destructive !== "boolean") {
    problems.push(`Tool "${name}": destructive must be true or false when given.`);
  }
  if (typeof idempotent !== "boolean") {
    problems.push(`Tool "${name}": idempotent must be true or false when given.`);
  }
  const timeoutProblem = findTimeoutProblem(timeoutMs);
  if (timeoutProblem) problems.push(`Tool "${name}": ${timeoutProblem}`);
  if (
    target !== undefined &&
    (typeof target !== "object" || target === null || typeof target.service !== "string")
  ) {
    problems.push(
      `Tool "${name}": target must be an object such as { service: "orders", account: "acme", environment: "sandbox" } when given.`,
    );
  }
  const { reconcile } = definition;
  if (reconcile !== undefined && typeof reconcile !== "function") {
    problems.push(`Tool "${name}": reconcile must be a function when given.`);
  }
  if (describeAction !== undefined && typeof describeAction !== "function") {
    problems.push(`Tool "${name}": describeAction must be a function when given.`);
  }
  let parameters: ResolvedToolParameters | undefined;
  try {
    parameters = resolveToolParameters(definition.parameters, name);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length > 0 || !parameters) throw new ConfigurationError(problems);

  const execute = definition.execute;
  const tool: Tool<unknown, unknown> = {
    name,
    description: definition.description,
    parameters: parameters.jsonSchema,
    checkArguments: parameters.checkArguments,
    execute: async (args, context) => execute(args, context),
    needsApproval,
    readOnly,
    ...(destructive !== undefined ? { destructive } : {}),
    idempotent,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(describeAction ? { describeAction } : {}),
    ...(reconcile ? { reconcile } : {}),
    ...(target ? { target: Object.freeze(pickTarget(target)) } : {}),
  };
  return Object.freeze(tool);
}

// Only the known fields, strings only: the target is hashed into every fingerprint.
function pickTarget(target: ToolTarget): ToolTarget {
  const picked: ToolTarget = { service: target.service };
  for (const key of ["address", "account", "environment"] as const) {
    const value = target[key];
    if (typeof value === "string" && value !== "") picked[key] = value;
  }
  return picked;
}
