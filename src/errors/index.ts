export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
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
  ResponseTooLargeError,
  TimeoutError,
} from "./transport-errors.js";
export { UnexpectedAnswerError } from "./unexpected-answer-error.js";
