/** A stream that may be a terminal. */
export type TerminalAware<Stream> = Stream & { isTTY?: boolean };

/**
 * Where the command reads and writes, and its environment: the process's own
 * by default, plain streams and an object in tests.
 */
export interface CliIo {
  stdin: TerminalAware<NodeJS.ReadableStream>;
  /** Receives the answer (or the `--json` report) and nothing else. */
  stdout: TerminalAware<NodeJS.WritableStream>;
  /** Receives progress, warnings and errors. */
  stderr: TerminalAware<NodeJS.WritableStream>;
  env: Readonly<Record<string, string | undefined>>;
}

/** The running process's streams and environment. */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  };
}
