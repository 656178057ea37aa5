import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

/** A TypeScript child process and the JSON object it printed first. */
export interface TsProcess<Message> {
  child: ChildProcess;
  /** The first line the child printed on stdout, parsed as JSON. */
  message: Message;
  /** Closes the child's stdin (its cue to exit) and waits for it to exit. */
  stop(): Promise<void>;
}

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/**
 * Starts `node --import tsx <script> ...args` and resolves with the first
 * line it prints, parsed as JSON. The child's stderr is passed through; a
 * child that exits before printing rejects with its exit code. Children
 * exit when their stdin closes, so none outlives this process.
 */
export function spawnTsProcess<Message>(
  script: URL,
  args: readonly string[] = [],
  nodeOptions: readonly string[] = [],
): Promise<TsProcess<Message>> {
  const child = spawn(
    process.execPath,
    [...nodeOptions, "--import", tsxLoader, script.pathname, ...args],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const stop = async () => {
    child.stdin?.end();
    await exited;
  };
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    let answered = false;
    lines.once("line", (line) => {
      answered = true;
      try {
        resolve({ child, message: JSON.parse(line) as Message, stop });
      } catch (error) {
        void stop();
        reject(
          new Error(`${script.pathname} printed a line that is not JSON: ${line}`, {
            cause: error,
          }),
        );
      }
    });
    child.once("error", reject);
    void exited.then((code) => {
      if (!answered)
        reject(new Error(`${script.pathname} exited with code ${code} before printing its result`));
    });
  });
}

/** In a child started by {@link spawnTsProcess}: runs `close` and exits once stdin closes. */
export function exitWhenStdinCloses(close: () => Promise<void>): void {
  process.stdin.resume();
  process.stdin.once("end", () => {
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
