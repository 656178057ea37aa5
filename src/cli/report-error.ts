import type { CliIo } from "./cli-io.js";
import { describeFailure, type FailureContext } from "./describe-failure.js";
import type { ExitCode } from "./exit-codes.js";

/**
 * Writes a failure to stderr as `switchyard: <problem>` lines, plus the
 * stack when `SWITCHYARD_DEBUG=1`, and returns its exit status.
 */
export function reportError(error: unknown, io: CliIo, context: FailureContext = {}): ExitCode {
  const failure = describeFailure(error, context);
  for (const line of failure.message.split("\n")) io.stderr.write(`switchyard: ${line}\n`);
  if (io.env.SWITCHYARD_DEBUG === "1" && error instanceof Error && error.stack) {
    io.stderr.write(`${error.stack}\n`);
    let cause = error.cause;
    while (cause instanceof Error) {
      io.stderr.write(`caused by: ${cause.stack ?? cause.message}\n`);
      cause = cause.cause;
    }
  }
  return failure.exitCode;
}
