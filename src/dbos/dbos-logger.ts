import type { Logger } from "../internal/logger.js";

/** DBOS's log levels, lowest first. */
const levels = ["debug", "info", "warn", "error"] as const;
type Level = (typeof levels)[number];

/** The logger DBOS is given (its `DLogger`): what it logs, at a level. */
export interface DbosLogSink {
  debug(entry: unknown): void;
  info(entry: unknown): void;
  warn(entry: unknown): void;
  error(entry: unknown, metadata?: { stack?: string }): void;
}

/**
 * DBOS's internal logging, at `level` and above: into the agent's logger
 * when it has one, else to the console as DBOS logs by default. A recovery
 * re-enqueues the workflows it hands over, so DBOS warns, with a stack
 * trace, that each model call's workflow "already exists in queue" when its
 * run starts it again: expected, it is logged at debug level, without the
 * stack.
 */
export function dbosLogSink(logger: Logger | undefined, level: string): DbosLogSink {
  const least = Math.max(0, levels.indexOf(level as Level));
  const at = (wanted: Level) => levels.indexOf(wanted) >= least;
  const write = (wanted: Level, entry: unknown, stack?: string) => {
    if (!at(wanted)) return;
    if (logger) {
      const text = entry instanceof Error ? entry.message : String(entry);
      logger[wanted]({ ...(stack ? { stack } : {}) }, text);
    } else if (wanted === "error") console.error(entry, ...(stack ? ["\n", stack] : []));
    else if (wanted === "warn") console.warn(entry);
    else if (wanted === "info") console.log(entry);
    else console.debug(entry);
  };
  return {
    debug: (entry) => write("debug", entry),
    info: (entry) => write("info", entry),
    warn: (entry) => {
      const text = String(entry);
      if (!text.includes("already exists in queue")) return write("warn", entry);
      // The message without the stack DBOS appends to it.
      const end = text.indexOf("The queue is not updated.");
      write("debug", end < 0 ? text : text.slice(0, end + "The queue is not updated.".length));
    },
    error: (entry, metadata) => write("error", entry, metadata?.stack),
  };
}
