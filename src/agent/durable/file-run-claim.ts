import { randomBytes } from "node:crypto";
import { readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { describeThrown } from "../describe-thrown.js";
import { RunNotResumableError, RunStoreError } from "./durable-errors.js";
import type { RunClaim } from "./run-store.js";

/** Who holds a claim, as its lock file says. */
interface ClaimHolder {
  pid: number;
  hostname: string;
  claimedAt: string;
  token: string;
}

/**
 * Claims a run with a lock file created exclusively (`wx`): the first
 * process to create it holds the run; others are refused, naming the
 * holder. `takeOver` replaces the lock of a holder that is gone (a crash
 * leaves its lock behind). Release removes the lock only while it is still
 * this claim's.
 */
export async function claimWithLockFile(
  runId: string,
  lockFile: string,
  options: { takeOver?: boolean } = {},
): Promise<RunClaim> {
  const holder: ClaimHolder = {
    pid: process.pid,
    hostname: hostname(),
    claimedAt: new Date().toISOString(),
    token: randomBytes(8).toString("hex"),
  };
  const text = `${JSON.stringify(holder)}\n`;
  try {
    await writeFile(lockFile, text, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") {
      throw new RunStoreError(
        {
          operation: "claim",
          runId,
          message: `Could not claim run "${runId}" (${lockFile}): ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
    if (options.takeOver !== true) {
      const current = await readHolder(lockFile);
      const who = current
        ? `process ${current.pid} on ${current.hostname} since ${current.claimedAt}`
        : "another process";
      throw new RunNotResumableError(
        runId,
        "claimed",
        `Run "${runId}" is being worked on by ${who} (lock ${lockFile}). Wait for it to finish; if that process is gone, resume with { takeOver: true }.`,
        { takeOver: true },
      );
    }
    await writeFile(lockFile, text, { mode: 0o600 });
  }
  return {
    release: async () => {
      const current = await readHolder(lockFile);
      if (current?.token === holder.token) await unlink(lockFile).catch(() => {});
    },
  };
}

async function readHolder(lockFile: string): Promise<ClaimHolder | undefined> {
  try {
    const value = JSON.parse(await readFile(lockFile, "utf8")) as Partial<ClaimHolder>;
    return typeof value.token === "string" ? (value as ClaimHolder) : undefined;
  } catch {
    return undefined;
  }
}
