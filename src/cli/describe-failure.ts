import { MaxStepsExceededError } from "../agent/errors.js";
import { BudgetExhaustedError } from "../agent/run-budget.js";
import { ApiError, AuthenticationError, PermissionDeniedError } from "../errors/api-error.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { AbortedError, ConnectionError, TimeoutError } from "../errors/transport-errors.js";
import { redactText } from "../internal/redact.js";
import { withoutTrailingSlashes } from "../internal/without-trailing-slashes.js";
import { CommandError } from "./command-error.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { type ServiceName, serviceNames, serviceVariables } from "./read-service-settings.js";
import type { ServiceOrigin } from "./resolve-services.js";

/** What the command prints for a failure (one line per problem) and its exit status. */
export interface FailureDescription {
  message: string;
  exitCode: ExitCode;
}

/** What is known about where a failure happened. */
export interface FailureContext {
  /** The run's services, to name the one an error's URL belongs to. */
  origins?: Record<ServiceName, ServiceOrigin> | undefined;
  /** The service that was called, when the caller knows it. */
  service?: ServiceName | undefined;
}

/**
 * Turns an error into the words the command prints: which service, which
 * address and which variable to look at for transport and HTTP errors, the
 * problems for configuration errors. Secrets are scrubbed.
 */
export function describeFailure(error: unknown, context: FailureContext = {}): FailureDescription {
  const found = findKnownError(error);
  const describe = (message: string, exitCode: ExitCode): FailureDescription => ({
    message: redactText(message),
    exitCode,
  });
  if (found instanceof CommandError) return describe(found.message, found.exitCode);
  if (found instanceof ConfigurationError) {
    return describe(found.problems.join("\n"), exitCodes.usage);
  }
  if (found instanceof AbortedError) {
    return describe("The run was aborted before it completed.", exitCodes.notCompleted);
  }
  if (found instanceof MaxStepsExceededError)
    return describe(found.message, exitCodes.notCompleted);
  if (found instanceof BudgetExhaustedError) {
    const flag = found.limit === "toolCalls" ? "--max-tool-calls" : "--max-tokens";
    return describe(
      `${found.reached} Start a new run with a larger ${flag}, or add --extend-budget to let a person extend it.`,
      exitCodes.notCompleted,
    );
  }
  if (
    found instanceof ConnectionError ||
    found instanceof TimeoutError ||
    found instanceof ApiError
  ) {
    const service = context.service ?? serviceForUrl(found.url, context.origins);
    const origin = service ? context.origins?.[service] : undefined;
    const where = service
      ? `the ${service} ${origin?.simulated ? "simulator" : "service"} at ${origin?.url ?? found.url}`
      : found.url;
    const fromVariable =
      service && origin && !origin.simulated ? ` (${serviceVariables[service].url})` : "";
    if (found instanceof ConnectionError) {
      return describe(
        `Could not reach ${where}${fromVariable}: ${found.message}`,
        exitCodes.notCompleted,
      );
    }
    if (found instanceof TimeoutError) {
      return describe(`No answer in time from ${where}: ${found.message}`, exitCodes.notCompleted);
    }
    if (found instanceof AuthenticationError || found instanceof PermissionDeniedError) {
      const credential = service ? serviceVariables[service].secret : "its token";
      return describe(
        `${capitalize(where)} rejected ${credential} (HTTP ${found.status}); check the value: ${found.message}`,
        exitCodes.usage,
      );
    }
    return describe(`${capitalize(where)} failed: ${found.message}`, exitCodes.notCompleted);
  }
  if (error instanceof Error) return describe(error.message, exitCodes.notCompleted);
  return describe(String(error), exitCodes.notCompleted);
}

/** The error itself or the first error of its `cause` chain the command knows how to word. */
function findKnownError(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (
      current instanceof CommandError ||
      current instanceof ConfigurationError ||
      current instanceof AbortedError ||
      current instanceof MaxStepsExceededError ||
      current instanceof BudgetExhaustedError ||
      current instanceof ConnectionError ||
      current instanceof TimeoutError ||
      current instanceof ApiError
    ) {
      return current;
    }
    current = current.cause;
  }
  return error;
}

function serviceForUrl(
  url: string,
  origins: Record<ServiceName, ServiceOrigin> | undefined,
): ServiceName | undefined {
  if (!origins) return undefined;
  let best: { service: ServiceName; length: number } | undefined;
  for (const service of serviceNames) {
    const base = withoutTrailingSlashes(origins[service].url);
    if (
      (url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`)) &&
      base.length > (best?.length ?? -1)
    ) {
      best = { service, length: base.length };
    }
  }
  return best?.service;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
