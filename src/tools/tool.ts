import type { Logger } from "pino";
import type { JsonSchema } from "./json-schema.js";

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** Fires when the run is aborted or the tool's timeout passes. */
  signal: AbortSignal;
  /** A child of the agent's logger (silent when none was given). */
  logger: Logger;
  /** The id of the model's tool call this execution answers. */
  toolCallId: string;
}

/** Whether a call needs a human's approval before it runs. */
export type NeedsApproval<Args> = boolean | ((args: Args) => boolean | Promise<boolean>);

/**
 * How a pending action reads to the person asked to approve it: what will
 * happen, to what, and whether it can be undone.
 */
export interface ActionDescription {
  /** One sentence: what will happen. */
  summary: string;
  /** The things affected, one line each (e.g. callback URL and type, not only the id). */
  details?: string[];
  /** True when the action cannot be undone. @default true */
  irreversible?: boolean;
}

/** The result of checking a model's arguments against the tool's schema. */
export type ArgumentsCheck<Args> =
  | { success: true; data: Args }
  | {
      success: false;
      /** One line per problem, in words a model can act on (`limit: must be at most 100`). */
      issues: string[];
    };

/**
 * A tool the model can call. Build one with `defineTool`; the JSON Schema in
 * `parameters` is computed once, at definition.
 */
export interface Tool<Args = unknown, Result = unknown> {
  readonly name: string;
  readonly description: string;
  /** JSON Schema (`type: "object"`) sent to the model. */
  readonly parameters: JsonSchema;
  /** Validates and parses raw arguments (already JSON-decoded). */
  checkArguments(args: unknown): ArgumentsCheck<Args>;
  execute(args: Args, context: ToolContext): Promise<Result>;
  readonly needsApproval: NeedsApproval<Args>;
  /**
   * True when the tool only reads: a durable run neither journals its calls
   * as started nor refuses to run them again after a crash, and the model is
   * pointed to it to check the state when a call's outcome is unknown.
   * @default false (the call may change something)
   */
  readonly readOnly?: boolean;
  /** Milliseconds one call may take; overrides the agent's `toolTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Words for the approver; when absent a generic description is built from the arguments. */
  describeAction?: (
    args: Args,
    context: ToolContext,
  ) => ActionDescription | Promise<ActionDescription>;
}

/** A tool of any argument and result type, as agents and tool sets hold them. */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous tool list needs the variance escape.
export type AnyTool = Tool<any, any>;
