import { spawn } from "node:child_process";
import { repositoryRoot } from "./spawn-switchyard.js";

/** A command running in a pseudo-terminal: what it printed so far, and keys to send it. */
export interface TerminalSession {
  /** Everything printed (stdout and stderr share the terminal), with `\r\n` read as `\n`. */
  output(): string;
  /** Resolves once the output contains `text`. */
  waitFor(text: string): Promise<void>;
  /** Types raw keys: `"\x03"` is Ctrl-C, `"\x04"` Ctrl-D. */
  press(keys: string): void;
  /** Ends the terminal's input: the command reads end of input (as after Ctrl-D). */
  endInput(): void;
  /** Resolves to the exit status once the command ended. */
  exited: Promise<number | null>;
}

/**
 * Runs a shell command line from the repository root inside a pseudo-terminal
 * made by util-linux `script`, so stdin, stdout and stderr are terminals as
 * in a person's shell, with no SWITCHYARD_* variables but `env`. The shell
 * `script` starts (`$SHELL`, or `/bin/sh` where it is unset, as on CI) execs
 * the command, so Ctrl-C reaches the command alone: a shell left waiting
 * (dash does not exec a `-c` command) dies of it and reports 130 instead of
 * the command's own status.
 */
export function spawnInTerminal(
  commandLine: string,
  env: Record<string, string> = {},
): TerminalSession {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("SWITCHYARD_")),
  );
  const child = spawn(
    "script",
    ["--quiet", "--return", "--command", `exec ${commandLine}`, "/dev/null"],
    {
      cwd: repositoryRoot,
      env: { ...inherited, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let printed = "";
  const watchers: { text: string; resolve: () => void }[] = [];
  const collect = (chunk: Buffer) => {
    printed += chunk.toString("utf8").replaceAll("\r\n", "\n");
    for (const watcher of watchers.filter((candidate) => printed.includes(candidate.text))) {
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.resolve();
    }
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      for (const watcher of watchers.splice(0)) watcher.resolve();
      resolve(code);
    });
  });
  return {
    output: () => printed,
    waitFor: (text) =>
      printed.includes(text)
        ? Promise.resolve()
        : new Promise((resolve) => watchers.push({ text, resolve })),
    press: (keys) => child.stdin.write(keys),
    endInput: () => child.stdin.end(),
    exited,
  };
}
