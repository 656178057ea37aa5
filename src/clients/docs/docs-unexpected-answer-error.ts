import { SwitchyardError } from "../../errors/switchyard-error.js";

/**
 * The documentation service answered 2xx, but the body lacks what the
 * operation needs (a `files` array, a project id) or is not JSON of the
 * expected shape.
 */
export class DocsUnexpectedAnswerError extends SwitchyardError {
  override readonly name: string = "DocsUnexpectedAnswerError";
  readonly method: string;
  readonly url: string;
  /** One entry per field that could not be read. */
  readonly problems: readonly string[];

  constructor(target: { method: string; url: string }, problems: readonly string[]) {
    super(
      `${target.method} ${target.url} answered with a body this client cannot read: ${problems.join("; ")}. Check that baseUrl and routes point at the documentation CLI service.`,
    );
    this.method = target.method;
    this.url = target.url;
    this.problems = [...problems];
  }
}
