import { SwitchyardError } from "../errors/switchyard-error.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";

/**
 * A failure the command reports as one line (its message) and an exit status,
 * without a stack trace: bad usage, bad configuration, a service that cannot
 * be reached.
 */
export class CommandError extends SwitchyardError {
  override readonly name: string = "CommandError";
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode, options?: { cause?: unknown }) {
    super(message, options);
    this.exitCode = exitCode;
  }
}

/** A usage or configuration mistake (exit status 2). */
export function usageError(message: string, options?: { cause?: unknown }): CommandError {
  return new CommandError(message, exitCodes.usage, options);
}
