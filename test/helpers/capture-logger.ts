import { Writable } from "node:stream";
import { type Logger, pino } from "pino";

/** A pino logger writing into memory, so a test can read every line it logged. */
export function captureLogger(level = "trace"): { logger: Logger; text: () => string } {
  let captured = "";
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      captured += String(chunk);
      callback();
    },
  });
  return { logger: pino({ level }, stream), text: () => captured };
}
