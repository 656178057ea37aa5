import { randomBytes } from "node:crypto";
import { readFile, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { describeThrown } from "../agent/describe-thrown.js";
import {
  RunConflictError,
  RunNotResumableError,
  RunStoreError,
} from "../agent/durable/durable-errors.js";
import type { RunClaim, RunClaimOptions, RunReleaseOptions } from "../agent/durable/run-store.js";

/** The last token handed out here: tokens grow even within one millisecond. */
let lastToken = 0;

/** Who holds a claim, as its lock file says. */
export interface ClaimHolder {
  pid: number;
  hostname: string;
  owner: string;
  claimedAt: string;
  /** This claim's identity: the lock file is this claim's while it holds this id. */
  id: string;
  token: number;
}

/**
 * Claims a run with a lock file created exclusively (`wx`): the first
 * process to create it holds the run; others are refused, naming the
 * holder. `takeOver` replaces the lock of a holder that is gone (a crash
 * leaves its lock behind). The claim never expires; release removes the
 * lock only while it is still this claim's, then calls `onRelease` (which
 * records when the run is due again).
 */
export async function claimWithLockFile(
  runId: string,
  lockFile: string,
  options: RunClaimOptions & { onRelease?: (options: RunReleaseOptions) => Promise<void> } = {},
): Promise<RunClaim> {
  const holder: ClaimHolder = {
    pid: process.pid,
    hostname: hostname(),
    owner: options.owner ?? `${hostname()}:${process.pid}`,
    claimedAt: new Date().toISOString(),
    id: randomBytes(8).toString("hex"),
    token: Math.max(Date.now(), lastToken + 1),
  };
  lastToken = holder.token;
  const text = `${JSON.stringify(holder)}\n`;
  let recovered = false;
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
      const current = await readClaimHolder(lockFile);
      const where = current ? `process ${current.pid} on ${current.hostname}` : undefined;
      const who = current
        ? `${current.owner && current.owner !== `${current.hostname}:${current.pid}` ? `${current.owner} (${where})` : where} since ${current.claimedAt}`
        : "another process";
      throw new RunNotResumableError(
        runId,
        "claimed",
        `Run "${runId}" is being worked on by ${who} (lock ${lockFile}). Wait for it to finish; if that process is gone, resume with { takeOver: true }.`,
        { takeOver: true },
      );
    }
    const current = await readClaimHolder(lockFile);
    const before = typeof current?.token === "number" ? current.token : 0;
    holder.token = Math.max(holder.token, before + 1);
    lastToken = holder.token;
    await writeFile(lockFile, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
    recovered = true;
  }
  const isCurrent = async () => (await readClaimHolder(lockFile))?.id === holder.id;
  return {
    runId,
    owner: holder.owner,
    token: holder.token,
    recovered,
    expiresAt: undefined,
    renew: async () => {
      if (!(await isCurrent())) {
        throw new RunConflictError({
          operation: "renew",
          runId,
          reason: "claim",
          message: `The claim on run "${runId}" was lost: another process took the run over (lock ${lockFile}).`,
        });
      }
    },
    release: async (releaseOptions = {}) => {
      if (!(await isCurrent())) return;
      await options.onRelease?.(releaseOptions);
      await unlink(lockFile).catch(() => {});
    },
  };
}

/** The holder a lock file names; `undefined` when there is none or it cannot be read. */
export async function readClaimHolder(lockFile: string): Promise<ClaimHolder | undefined> {
  try {
    const value = JSON.parse(await readFile(lockFile, "utf8")) as Partial<ClaimHolder>;
    return typeof value.pid === "number" ? (value as ClaimHolder) : undefined;
  } catch {
    return undefined;
  }
}
