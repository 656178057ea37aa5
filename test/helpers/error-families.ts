import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from "../../src/errors/index.js";

/** Each status family a client must map, with the error class it maps to. */
export const errorFamilies = [
  [400, BadRequestError],
  [401, AuthenticationError],
  [403, PermissionDeniedError],
  [404, NotFoundError],
  [409, ConflictError],
  [422, UnprocessableEntityError],
  [429, RateLimitError],
  [500, InternalServerError],
  [503, InternalServerError],
] as const;
