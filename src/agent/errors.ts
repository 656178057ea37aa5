import { SwitchyardError } from "../errors/switchyard-error.js";
import { redactText } from "../internal/redact.js";
import { describeThrown } from "./describe-thrown.js";

/**
 * The run used all its steps while the model still asked for tools. Found in
 * `RunResult.error` when the status is `max_steps`; the partial result is kept.
 */
export class MaxStepsExceededError extends SwitchyardError {
  override readonly name: string = "MaxStepsExceededError";
  readonly maxSteps: number;

  constructor(maxSteps: number) {
    super(
      `The run stopped after ${maxSteps} step(s) while the model still asked for tools; raise maxSteps or narrow the task`,
    );
    this.maxSteps = maxSteps;
  }
}

/**
 * The model's arguments for a tool were not JSON or failed the tool's schema.
 * The model was told the `issues` and asked to call again.
 */
export class InvalidToolInputError extends SwitchyardError {
  override readonly name: string = "InvalidToolInputError";
  readonly toolName: string;
  readonly toolCallId: string;
  /** One `path: message` line per problem, as the model was told them. */
  readonly issues: readonly string[];

  constructor(details: { toolName: string; toolCallId: string; issues: readonly string[] }) {
    super(`Invalid arguments for tool "${details.toolName}": ${details.issues.join("; ")}`);
    this.toolName = details.toolName;
    this.toolCallId = details.toolCallId;
    this.issues = [...details.issues];
  }
}

/** A tool threw. `cause` holds what it threw; the message is redacted. */
export class ToolExecutionError extends SwitchyardError {
  override readonly name: string = "ToolExecutionError";
  readonly toolName: string;
  readonly toolCallId: string;

  constructor(
    details: { toolName: string; toolCallId: string; message?: string },
    options?: { cause?: unknown },
  ) {
    super(
      details.message ??
        `Tool "${details.toolName}" failed: ${redactText(describeThrown(options?.cause))}`,
      options,
    );
    this.toolName = details.toolName;
    this.toolCallId = details.toolCallId;
  }
}

/** A tool did not finish within its `timeoutMs` (or the agent's `toolTimeoutMs`); its signal was fired. */
export class ToolTimeoutError extends ToolExecutionError {
  override readonly name: string = "ToolTimeoutError";
  readonly timeoutMs: number;

  constructor(details: { toolName: string; toolCallId: string; timeoutMs: number }) {
    super({
      ...details,
      message: `Tool "${details.toolName}" did not finish within ${details.timeoutMs} ms and was stopped; raise the tool's timeoutMs (or the agent's toolTimeoutMs) if it is slow by nature`,
    });
    this.timeoutMs = details.timeoutMs;
  }
}

/**
 * The model's final answer did not parse or match the `output` schema, also
 * after being sent back with the problems as many times as `outputRetries`
 * allows. Found in `RunResult.error` of a `failed` run.
 */
export class InvalidOutputError extends SwitchyardError {
  override readonly name: string = "InvalidOutputError";
  /** The model's last answer, as it sent it. */
  readonly text: string;
  /** One `path: message` line per problem of the last answer, as the model was told them. */
  readonly issues: readonly string[];
  /** Answers read, the first one included. */
  readonly attempts: number;

  constructor(details: { text: string; issues: readonly string[]; attempts: number }) {
    super(
      `The model's answer did not match the output schema after ${details.attempts} attempt(s): ${redactText(details.issues.join("; "))}`,
    );
    this.text = redactText(details.text);
    this.issues = [...details.issues];
    this.attempts = details.attempts;
  }
}
