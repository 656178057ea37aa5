import type { RunResult } from "../agent/run-result.js";
import {
  ApiError,
  AuthenticationError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
} from "../errors/api-error.js";
import { ConnectionError, TimeoutError } from "../errors/transport-errors.js";

/**
 * Why an AG-UI run ended without finishing, as the `code` of its
 * RUN_ERROR: the model service refused the server's credentials
 * (`model_unauthorized`), was busy (`model_rate_limited`), failed or was
 * down (`model_unavailable`), could not be reached in time
 * (`model_unreachable`) or rejected the request (`model_error`); the run
 * stopped at its step limit (`max_steps`) or budget (`budget_exhausted`),
 * a question expired unanswered (`approval_expired`), it was stopped
 * (`aborted`), or it failed otherwise (`failed`).
 */
export type RunFailureCode =
  | "model_unauthorized"
  | "model_rate_limited"
  | "model_unavailable"
  | "model_unreachable"
  | "model_error"
  | "max_steps"
  | "budget_exhausted"
  | "approval_expired"
  | "aborted"
  | "failed";

/** A run's end as an AG-UI client is told it: a code and words for a person, no server detail. */
export interface RunFailure {
  code: RunFailureCode;
  message: string;
}

/**
 * What to tell an AG-UI client about a run that ended without finishing.
 * The words never carry the error's own message (a provider's address, a
 * host name): the server's log has those.
 */
export function runFailureOf(result: RunResult<unknown>): RunFailure {
  switch (result.status) {
    case "max_steps":
      return {
        code: "max_steps",
        message:
          "The assistant stopped after the most steps it may take for one message, before it finished. Ask again, perhaps for less at once.",
      };
    case "budget_exhausted":
      return {
        code: "budget_exhausted",
        message:
          "The assistant stopped: this conversation used up the tool calls or tokens it may spend.",
      };
    case "approval_expired":
      return {
        code: "approval_expired",
        message:
          "An approval question expired before anyone answered it; what it asked about did not run.",
      };
    case "aborted":
      return { code: "aborted", message: "The run was stopped before it finished." };
    default:
      return modelFailureOf(result.error);
  }
}

function modelFailureOf(error: Error | undefined): RunFailure {
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return {
      code: "model_unauthorized",
      message:
        "The AI model service refused this server's credentials, so the assistant cannot answer. The people running this service must fix its model key.",
    };
  }
  if (error instanceof RateLimitError) {
    return {
      code: "model_rate_limited",
      message:
        "The AI model service is receiving too many requests right now. Wait a moment and send your message again.",
    };
  }
  if (error instanceof InternalServerError) {
    return {
      code: "model_unavailable",
      message: "The AI model service is not working right now. Try again in a few minutes.",
    };
  }
  if (error instanceof ConnectionError || error instanceof TimeoutError) {
    return {
      code: "model_unreachable",
      message:
        "This server could not reach the AI model service in time. Try again in a few minutes.",
    };
  }
  if (error instanceof ApiError) {
    return {
      code: "model_error",
      message:
        "The AI model service could not handle this conversation. Try rephrasing your message, or start a new conversation.",
    };
  }
  return {
    code: "failed",
    message:
      "The assistant ran into a problem on the server and stopped. The people running this service can see what happened in its log.",
  };
}
