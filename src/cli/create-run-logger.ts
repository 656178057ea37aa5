import { createLogger, type Logger, silentLogger } from "../internal/logger.js";
import type { CliIo } from "./cli-io.js";
import { usageError } from "./command-error.js";

const levels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Silent unless `SWITCHYARD_LOG_LEVEL` names a level: then JSON lines to `destination`. */
export function createRunLogger(env: CliIo["env"], destination: NodeJS.WritableStream): Logger {
  const level = env.SWITCHYARD_LOG_LEVEL?.trim();
  if (!level) return silentLogger();
  if (!levels.includes(level)) {
    throw usageError(`SWITCHYARD_LOG_LEVEL must be one of ${levels.join(", ")}; got "${level}".`);
  }
  return createLogger({ level, destination });
}
