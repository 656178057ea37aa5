import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root: the command runs from there, as `npm run switchyard` does. */
export const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));

/** How a finished child process ended. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `node --import tsx <script> ...args` from the repository root with
 * stdin a closed pipe (not a terminal) and no SWITCHYARD_* variables but `env`.
 */
export function spawnScript(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
): ChildProcess {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("SWITCHYARD_")),
  );
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: repositoryRoot,
    env: { ...inherited, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin?.end();
  return child;
}

/** Collects a child's output until it exits. */
export function finished(child: ChildProcess): Promise<Finished> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the `switchyard` command (`src/cli/main.ts`) to the end. */
export function runSwitchyard(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Finished> {
  return finished(spawnScript("src/cli/main.ts", args, env));
}
