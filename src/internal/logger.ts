import { type Logger, pino } from "pino";

export type { Logger } from "pino";

/**
 * Paths pino censors wherever a client or the agent logs an object. pino's
 * redaction needs explicit paths; `*` covers one level, so the common
 * nestings are listed. Values are also scrubbed before logging (redact.ts).
 */
export const redactPaths = [
  "authorization",
  "apiKey",
  "token",
  "secret_phrase",
  "encrypted_token",
  "*.authorization",
  "*.Authorization",
  "*.apiKey",
  "*.token",
  "*.secret_phrase",
  "*.encrypted_token",
  "*.headers.authorization",
  "*.headers.Authorization",
  "*.*.authorization",
  "*.*.token",
  "*.*.secret_phrase",
  "*.*.encrypted_token",
  "headers.authorization",
  "headers.Authorization",
];

let silent: Logger | undefined;

/** A logger that writes nothing; the default everywhere a logger is optional. */
export function silentLogger(): Logger {
  silent ??= pino({ level: "silent" });
  return silent;
}

/** A child logger for one component, with pino's redaction kept. */
export function componentLogger(parent: Logger | undefined, component: string): Logger {
  if (!parent) return silentLogger();
  return parent.child({ component });
}

/**
 * A pino logger with Switchyard's redaction paths, for applications that have
 * none of their own. `destination` defaults to stderr.
 */
export function createLogger(
  options: { level?: string; destination?: NodeJS.WritableStream } = {},
): Logger {
  return pino(
    { level: options.level ?? "info", redact: { paths: redactPaths, censor: "[redacted]" } },
    (options.destination ?? process.stderr) as pino.DestinationStream,
  );
}
