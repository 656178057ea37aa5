import { redactText } from "../internal/redact.js";
import { SwitchyardError } from "./switchyard-error.js";

/**
 * A caller mistake caught before anything was sent: a bad option, a request
 * parameter out of range, a tool defined twice. The message names each problem
 * and how to fix it; it never echoes a secret.
 */
export class ConfigurationError extends SwitchyardError {
  override readonly name: string = "ConfigurationError";
  /** One entry per problem found, each a complete sentence. */
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[], options?: { cause?: unknown }) {
    const list = (typeof problems === "string" ? [problems] : [...problems]).map((problem) =>
      redactText(problem),
    );
    super(
      list.length === 1 ? list[0]! : `${list.length} problems:\n- ${list.join("\n- ")}`,
      options,
    );
    this.problems = list;
  }
}
