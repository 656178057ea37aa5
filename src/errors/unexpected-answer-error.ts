import { SwitchyardError } from "./switchyard-error.js";

/** The request whose answer could not be read. */
export interface UnexpectedAnswerTarget {
  method: string;
  url: string;
  /** Which service the client speaks to, e.g. `the messaging service`. */
  service: string;
  environment?: string | undefined;
}

/**
 * The service answered 2xx, but the body lacks what the operation needs (an
 * id, a state, a list of records) or is not of the expected shape. Nothing in
 * it was used; callers that act on answers (an approver) must treat this like
 * any failure.
 */
export class UnexpectedAnswerError extends SwitchyardError {
  override readonly name: string = "UnexpectedAnswerError";
  readonly method: string;
  readonly url: string;
  readonly environment: string | undefined;
  /** One entry per field that could not be read. */
  readonly problems: readonly string[];

  constructor(target: UnexpectedAnswerTarget, problems: string | readonly string[]) {
    const list = typeof problems === "string" ? [problems] : [...problems];
    const where = target.environment ? ` [${target.environment}]` : "";
    super(
      `${target.method} ${target.url}${where} answered with a body this client cannot read: ${list.join("; ")}. Check that baseUrl and routes point at ${target.service}.`,
    );
    this.method = target.method;
    this.url = target.url;
    this.environment = target.environment;
    this.problems = list;
  }
}
