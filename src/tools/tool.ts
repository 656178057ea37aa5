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
  /**
   * For a write the service lets carry an idempotency key (a message's
   * `Idempotency-Key`): derived from the run, the step and the call's
   * content, so the same call asked again in a resumed step (with a new
   * tool call id) carries the same key, and the service does not write twice.
   * Absent where no agent runs the call.
   */
  idempotencyKey?: string;
  /**
   * Asks the person behind the run's approver to approve something the
   * tool must answer for them mid-call, besides the call itself (e.g. an
   * MCP server's question, answered by `mcpTools`): they are shown
   * `description` (untrusted text in its details, as for a call), and it
   * resolves `true` only when they approved exactly these arguments;
   * anything else (a denial, an edit, no answer in time, an abort) is
   * `false`. Absent when the run has no approver (nobody can be asked) or
   * no agent runs the call.
   */
  askApproval?: (request: {
    /** Names what is asked about, as a tool name does, e.g. `mcp_elicitation`. */
    toolName: string;
    /** What approving lets happen; the approval binds to it. */
    arguments: unknown;
    description: ActionDescription;
  }) => Promise<boolean>;
}

/** Whether a call needs a human's approval before it runs. */
export type NeedsApproval<Args> = boolean | ((args: Args) => boolean | Promise<boolean>);

/**
 * A rule an option of a tool set or of `mcpTools` makes about one of its
 * tools (`runWithoutApproval`, `needsApproval`, `allowedCallbackHosts`).
 * The tool only carries it: the agent's approval policy compiles it into a
 * named rule, evaluated after the policy's own rules and before the tool's
 * default `needsApproval`.
 */
export interface ToolApprovalRule<Args = unknown> {
  /** Names the rule in every decision it makes, e.g. `orderTools: runWithoutApproval`. */
  readonly name: string;
  /**
   * `allow` runs the call without asking, `ask` asks a person; a function
   * decides per call, `undefined` leaving the call to the other rules (one
   * that throws asks).
   */
  readonly decide:
    | "allow"
    | "ask"
    | ((args: Args) => "allow" | "ask" | undefined | Promise<"allow" | "ask" | undefined>);
}

/**
 * One line (or block) of an approval question. `label` is the tool's own
 * words; the untrusted part (anything from the arguments or from a service)
 * goes in `value` or `text`, never in `label`, so it is shown escaped and
 * quoted and cannot pose as part of the question.
 *
 * @example
 * { label: "order_shipped events to", value: "https://hooks.example.com/a" }
 * { label: "change message", value: message, writtenByAgent: true }
 * { label: "changes to the page", text: unifiedDiff }
 */
export interface ActionDetail {
  /** The tool's own words, e.g. `order` or `new content`: never text from the model or a service. */
  label: string;
  /** An untrusted value shown on the label's line, quoted, control characters written out. */
  value?: string | undefined;
  /** Untrusted text of several lines (a page, a diff), shown whole, line by line behind a `|` gutter. */
  text?: string | undefined;
  /** The value or text is the model's own words (a change message, a note): the person is told so. */
  writtenByAgent?: boolean | undefined;
}

/**
 * How a pending action reads to the person asked to approve it: what will
 * happen, to what, and whether it can be undone. Describe the whole effect:
 * every item affected, every value written.
 */
export interface ActionDescription {
  /**
   * One sentence in the tool's own words: what will happen. Shown escaped but
   * not quoted, so it must hold no text from the arguments or a service (put
   * that in `details`).
   */
  summary: string;
  /**
   * The things affected, each an `ActionDetail` (a label and a value). A plain string is
   * taken as untrusted and shown quoted on its own line.
   */
  details?: Array<ActionDetail | string>;
  /** True when the action cannot be undone. @default true */
  irreversible?: boolean;
}

/**
 * Where a tool's calls act, as the approval question names it: the service,
 * the account and the environment. It is part of the fingerprint an approval
 * binds to, so an approval given for the sandbox never lets the same call
 * run in production.
 *
 * @example
 * { service: "orders", address: "sandbox.example.com", account: "acme", environment: "sandbox" }
 */
export interface ToolTarget {
  /** The service, e.g. `orders`, `docs`, `messaging`. */
  service: string;
  /** The service's host, e.g. `sandbox.example.com`. */
  address?: string | undefined;
  /** The account (tenant) the calls act on, e.g. `acme`. */
  account?: string | undefined;
  /** `sandbox` or `production`, where the service has both. */
  environment?: string | undefined;
}

/**
 * What a tool's `reconcile` learned from the service about a call that was
 * interrupted after its start record: the effect the call was meant to have
 * now holds, and `result` says what was found and done, in the shape the
 * tool's `execute` returns.
 */
export interface ReconciledCall<Result> {
  /** The call's result as of now (what was already done, and what was done now). */
  result: Result;
  /** One sentence in the tool's own words, e.g. `2 callbacks were already deleted; 1 was deleted now`. */
  summary: string;
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
 * `parameters` is computed once, at definition. `Name` is its name as a
 * string literal type, so what names a tool (`hasToolCall`) can be checked.
 */
export interface Tool<Args = unknown, Result = unknown, Name extends string = string> {
  readonly name: Name;
  readonly description: string;
  /** JSON Schema (`type: "object"`) sent to the model. */
  readonly parameters: JsonSchema;
  /** Validates and parses raw arguments (already JSON-decoded). */
  checkArguments(args: unknown): ArgumentsCheck<Args>;
  execute(args: Args, context: ToolContext): Promise<Result>;
  /**
   * Whether a call asks a person by default: the fact the agent's
   * `approvalPolicy` starts from when no rule decides.
   */
  readonly needsApproval: NeedsApproval<Args>;
  /**
   * True when the tool only reads: a durable run neither journals its calls
   * as started nor refuses to run them again after a crash, and the model is
   * pointed to it to check the state when a call's outcome is unknown.
   * @default false (the call may change something)
   */
  readonly readOnly?: boolean;
  /**
   * True when a call may destroy or overwrite what cannot be restored
   * (deleting, cancelling, holding events that are then lost, overwriting
   * a value or a page); false when it only adds. A fact about the tool, not
   * a decision: who is asked is the approval policy's. MCP hosts see it as
   * `destructiveHint`.
   * @default absent: a tool that asks by default (`needsApproval` not `false`) counts as destructive
   */
  readonly destructive?: boolean;
  /**
   * True when calling the tool again with the same arguments changes
   * nothing more (deleting, cancelling, setting a value). MCP hosts see it
   * as `idempotentHint`.
   * @default false
   */
  readonly idempotent?: boolean;
  /** Milliseconds one call may take; overrides the agent's `toolTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Where the calls act; named in the approval question and part of the fingerprint. */
  readonly target?: ToolTarget;
  /**
   * The rules the options of the tool set (or `mcpTools`) that built the
   * tool make about its approval, each named in the decisions it makes. A
   * call none of them decides falls to `needsApproval`.
   */
  readonly approvalRules?: readonly ToolApprovalRule<Args>[];
  /**
   * How to learn the outcome of a call that was interrupted after its start
   * record (its process died during the call), instead of reporting it as
   * of unknown outcome. Called once per resume that finds the call started
   * and unfinished (again if that resume dies before saving), with the
   * call's arguments and its idempotency key; it asks the service what took
   * effect and finishes what did not, so it must be safe to repeat, and
   * safe whether or not the call took effect
   * (deleting by id what is still there, creating with the same idempotency
   * key). Resolve `undefined` (or throw) when the service cannot tell: the
   * call then stays of unknown outcome. The call is never run again through
   * `execute`.
   */
  reconcile?: (args: Args, context: ToolContext) => Promise<ReconciledCall<Result> | undefined>;
  /** Words for the approver; when absent a generic description is built from the arguments. */
  describeAction?: (
    args: Args,
    context: ToolContext,
  ) => ActionDescription | Promise<ActionDescription>;
}

/** A tool of any argument and result type (named `Name`), as agents and tool sets hold them. */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous tool list needs the variance escape.
export type AnyTool<Name extends string = string> = Tool<any, any, Name>;
