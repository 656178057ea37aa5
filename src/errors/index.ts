export {
  ApiError,
  type ApiErrorDetails,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createApiError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from "./api-error.js";
export { ConfigurationError } from "./configuration-error.js";
export { SwitchyardError } from "./switchyard-error.js";
export {
  AbortedError,
  ConnectionError,
  type RequestTarget,
  ResponseTooLargeError,
  TimeoutError,
} from "./transport-errors.js";
export { UnexpectedAnswerError, type UnexpectedAnswerTarget } from "./unexpected-answer-error.js";
