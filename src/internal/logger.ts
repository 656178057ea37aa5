import type { DestinationStream, Logger } from "pino";
import { loadOnFirstUse } from "./load-on-first-use.js";
import { redactValue, type SecretRegistry } from "./redact.js";

export type { Logger } from "pino";

/** pino, loaded when the first logger is made, not by `import("switchyard-agents")`. */
const loadPino = loadOnFirstUse<typeof import("pino")>("pino");

let silent: Logger | undefined;

/** A logger that writes nothing; the default everywhere a logger is optional. */
export function silentLogger(): Logger {
  silent ??= loadPino().pino({ level: "silent" });
  return silent;
}

/**
 * A child logger for one component (silent when there is no parent), with
 * `secrets` removed from its records when given.
 */
export function componentLogger(
  parent: Logger | undefined,
  component: string,
  secrets?: SecretRegistry,
): Logger {
  if (!parent) return silentLogger();
  const child = parent.child({ component });
  return secrets ? redactingLogger(child, secrets) : child;
}

/**
 * A pino logger applying Switchyard's redaction policy (secret-named fields
 * and secret-shaped text, at any depth) to every record, for applications
 * that have no logger of their own. `destination` defaults to stderr.
 */
export function createLogger(
  options: { level?: string; destination?: NodeJS.WritableStream } = {},
): Logger {
  return loadPino().pino(
    {
      level: options.level ?? "info",
      formatters: { log: (record) => redactValue(record) as Record<string, unknown> },
    },
    (options.destination ?? process.stderr) as DestinationStream,
  );
}

const logMethods = new Set(["fatal", "error", "warn", "info", "debug", "trace"]);

/**
 * `logger` with `registry`'s secrets (and the redaction patterns) removed
 * from everything logged through it, message and fields alike, and from
 * its children's records: whatever logger an application gives, a secret
 * the library knows never reaches a log record.
 */
export function redactingLogger(logger: Logger, registry: SecretRegistry): Logger {
  return new Proxy(logger, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "child") {
        return (...args: unknown[]) =>
          redactingLogger((value as (...inner: unknown[]) => Logger).apply(target, args), registry);
      }
      if (typeof property === "string" && logMethods.has(property)) {
        return (...args: unknown[]) =>
          (value as (...inner: unknown[]) => void).apply(
            target,
            args.map((argument) =>
              typeof argument === "string"
                ? registry.redactText(argument)
                : registry.redactValue(argument),
            ),
          );
      }
      return (value as (...inner: unknown[]) => unknown).bind(target);
    },
  });
}
