import type { Logger } from "pino";
import type { ToolContext } from "../tools/tool.js";

/**
 * A `ToolContext` whose `signal`, `logger` and `idempotencyKey` are made on
 * first use, with `askApproval` when given. Its
 * properties are own, enumerable and writable, as a plain object's are.
 */
export function toolContext(
  source: { readonly signal: AbortSignal },
  logger: () => Logger,
  toolCallId: string,
  makeIdempotencyKey?: () => string,
  askApproval?: ToolContext["askApproval"],
): ToolContext {
  let signal: AbortSignal | undefined;
  let replacedLogger: Logger | undefined;
  const context: ToolContext = {
    get signal(): AbortSignal {
      signal ??= source.signal;
      return signal;
    },
    set signal(value: AbortSignal) {
      signal = value;
    },
    get logger(): Logger {
      return replacedLogger ?? logger();
    },
    set logger(value: Logger) {
      replacedLogger = value;
    },
    toolCallId,
    ...(askApproval !== undefined ? { askApproval } : {}),
  };
  if (makeIdempotencyKey) {
    // Defined, not spread: spreading an accessor calls it, which made the
    // key (a digest of the arguments) for every call, read or not.
    let idempotencyKey: string | undefined;
    Object.defineProperty(context, "idempotencyKey", {
      get: (): string => {
        idempotencyKey ??= makeIdempotencyKey();
        return idempotencyKey;
      },
      set: (value: string) => {
        idempotencyKey = value;
      },
      enumerable: true,
      configurable: true,
    });
  }
  return context;
}
