import { SwitchyardError } from "../../errors/switchyard-error.js";

/**
 * The service answered 2xx, but the body lacks what the operation needs (an
 * id, a state) or is not an object. Callers that act on answers (an approver)
 * must treat this like any failure: nothing was learnt.
 */
export class UnexpectedAnswerError extends SwitchyardError {
  override readonly name: string = "UnexpectedAnswerError";
  readonly method: string;
  readonly url: string;
  /** One entry per field that could not be read. */
  readonly problems: readonly string[];

  constructor(target: { method: string; url: string }, problems: readonly string[]) {
    super(
      `${target.method} ${target.url} answered with a body this client cannot read: ${problems.join("; ")}. Check that baseUrl and routes point at the messaging service.`,
    );
    this.method = target.method;
    this.url = target.url;
    this.problems = [...problems];
  }
}
