import { PassThrough } from "node:stream";
import type { CliIo } from "../../src/cli/cli-io.js";

/** In-memory streams for the command, and what was written to them. */
export interface TestIo {
  io: CliIo;
  /** Type a line, as the person at the terminal would. */
  type(line: string): void;
  stdout(): string;
  stderr(): string;
}

/** Streams that are not terminals unless `terminal` is set, and the given environment. */
export function createTestIo(
  options: { env?: Record<string, string>; terminal?: boolean } = {},
): TestIo {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let written = "";
  let errors = "";
  stdout.on("data", (chunk: Buffer) => {
    written += chunk.toString("utf8");
  });
  stderr.on("data", (chunk: Buffer) => {
    errors += chunk.toString("utf8");
  });
  const terminal = options.terminal === true;
  return {
    io: {
      stdin: Object.assign(stdin, { isTTY: terminal }),
      stdout: Object.assign(stdout, { isTTY: terminal }),
      stderr: Object.assign(stderr, { isTTY: terminal }),
      env: options.env ?? {},
    },
    type: (line) => stdin.write(`${line}\n`),
    stdout: () => written,
    stderr: () => errors,
  };
}
