/**
 * `switchyard-agents/errors`: every error class Switchyard throws or returns, with
 * the types of their details. The ones a caller usually catches are in the
 * main entry too.
 *
 * @module switchyard-agents/errors
 */

export { ApprovalExpiredError } from "../agent/approval/approval-expiry.js";
export {
  RunConflictError,
  RunNotFoundError,
  RunNotResumableError,
  RunRolledBackError,
  RunStateError,
  RunStoreError,
} from "../agent/durable/durable-errors.js";
export {
  InvalidOutputError,
  InvalidToolInputError,
  MaxStepsExceededError,
  ToolExecutionError,
  ToolTimeoutError,
} from "../agent/errors.js";
export { BudgetExhaustedError } from "../agent/run-budget.js";
export { DocsPathNotFoundError } from "../clients/docs/docs-path-not-found-error.js";
export { DocsTextNotFoundError } from "../clients/docs/docs-text-not-found-error.js";
export { TokenRotationError } from "../clients/orders/token-rotation-error.js";
export { StreamError } from "../clients/reasoner/stream-error.js";
export * from "../errors/index.js";
