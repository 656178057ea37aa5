import { SwitchyardError } from "../../errors/switchyard-error.js";

/**
 * The order service answered 2xx, but the body lacks what the operation needs
 * (no `encrypted_token`, no list of records). Nothing in it was used.
 */
export class UnexpectedOrderAnswerError extends SwitchyardError {
  override readonly name: string = "UnexpectedOrderAnswerError";
  readonly method: string;
  readonly url: string;
  readonly environment: string | undefined;

  constructor(
    target: { method: string; url: string; environment?: string | undefined },
    problem: string,
  ) {
    const where = target.environment ? ` [${target.environment}]` : "";
    super(
      `${target.method} ${target.url}${where} answered with a body this client cannot read: ${problem}. Check that baseUrl and routes point at the order management service.`,
    );
    this.method = target.method;
    this.url = target.url;
    this.environment = target.environment;
  }
}

/** Names what a parsed body is, for error messages (never its content). */
export function describeBody(body: unknown): string {
  if (body === undefined) return "an empty body";
  if (body === null) return "null";
  if (Array.isArray(body)) return "an array";
  if (typeof body === "object") {
    const keys = Object.keys(body).slice(0, 10);
    return keys.length > 0 ? `an object with fields ${keys.join(", ")}` : "an empty object";
  }
  return `a ${typeof body}`;
}
