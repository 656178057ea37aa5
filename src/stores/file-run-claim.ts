import { randomBytes } from "node:crypto";
import { readFile, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { describeThrown } from "../agent/describe-thrown.js";
import {
  RunConflictError,
  RunNotResumableError,
  RunStoreError,
} from "../agent/durable/durable-errors.js";
import type { RunClaim, RunClaimOptions, RunReleaseOptions } from "../agent/durable/run-queue.js";
import { withLockFile } from "./with-lock-file.js";

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
  /**
   * When the claim lapses unless renewed (absent in locks written before
   * claims expired: those never do).
   */
  expiresAt?: string;
}

/**
 * The lock file id of each claim this process took: tokens come from each
 * process's clock, so the next claim of a run, taken by another process,
 * can carry the token of one released before it; the id tells them apart.
 */
const claimIds = new WeakMap<RunClaim, string>();

/**
 * True when the lock file's holder is this claim: its token, and its id
 * when the claim was taken by this process (a claim from elsewhere is
 * known by its token alone).
 */
export function isHeldBy(holder: ClaimHolder | undefined, claim: RunClaim): boolean {
  if (holder?.token !== claim.token) return false;
  const id = claimIds.get(claim);
  return id === undefined || holder.id === id;
}

/** True while the holder's claim has not lapsed. */
export function isLive(holder: ClaimHolder | undefined, now: number = Date.now()): boolean {
  if (!holder) return false;
  return holder.expiresAt === undefined || Date.parse(holder.expiresAt) > now;
}

/**
 * Claims a run with a lock file created exclusively (`wx`): the first
 * process to create it holds the run, for `leaseMs` unless renewed; others
 * are refused, naming the holder. A lock whose lease lapsed (its holder
 * stalled or died) is taken over, as is any with `takeOver`; the claim is
 * then `recovered`. Replacing a lock, renewing and releasing happen under
 * a short `<lock>.taking` lock, so two processes never both take one run.
 * Release removes the lock only while it is still this claim's, then calls
 * `onRelease` (which records when the run is due again).
 */
export async function claimWithLockFile(
  runId: string,
  lockFile: string,
  options: RunClaimOptions & {
    leaseMs: number;
    /** Whether the run is marked running: a claim of it, unheld, is then `recovered`. */
    wasRunning: () => Promise<boolean>;
    /**
     * Reads the failed attempts at the run in a row, as the store recorded
     * them; read once the lock is taken (the previous holder's release has
     * recorded its attempt by then). @default none: 0
     */
    attempts?: (() => Promise<number>) | undefined;
    onRelease?: (options: RunReleaseOptions) => Promise<void>;
    /**
     * The lock a claim is replaced, renewed and released under: the store's
     * save lock, so a takeover never falls between a save's fencing check
     * and its write (the old holder's write would then land after the new
     * holder read the state). @default `<lockFile>.taking`
     */
    takingLock?: string | undefined;
  },
): Promise<RunClaim> {
  const { leaseMs } = options;
  const holder: ClaimHolder = {
    pid: process.pid,
    hostname: hostname(),
    owner: options.owner ?? `${hostname()}:${process.pid}`,
    claimedAt: new Date().toISOString(),
    id: randomBytes(8).toString("hex"),
    token: nextToken(0),
    expiresAt: new Date(Date.now() + leaseMs).toISOString(),
  };
  const text = () => `${JSON.stringify(holder)}\n`;
  const taking = options.takingLock ?? `${lockFile}.taking`;
  const underLock = <T>(operation: string, body: () => Promise<T>) =>
    withLockFile(taking, { operation, runId }, body);
  let recovered: boolean;
  /** When the holder a takeover replaced could act until (its lease's end). */
  let previousUntil: number | undefined;
  try {
    await writeFile(lockFile, text(), { flag: "wx", mode: 0o600 });
    recovered = await options.wasRunning();
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
    await underLock("claim", async () => {
      const current = await readClaimHolder(lockFile);
      // A lock that cannot be read yet is being written by its new holder.
      const live = current ? isLive(current) : await isRecent(lockFile, leaseMs);
      if (options.takeOver !== true && live) throw refusal(runId, lockFile, current);
      holder.token = nextToken(current?.token);
      if (current?.expiresAt !== undefined) previousUntil = Date.parse(current.expiresAt);
      holder.expiresAt = new Date(Date.now() + leaseMs).toISOString();
      await writeFile(lockFile, text(), { mode: 0o600 });
    });
    recovered = true;
  }
  const isCurrent = async () => (await readClaimHolder(lockFile))?.id === holder.id;
  const attempts = (await options.attempts?.()) ?? 0;
  const claim: RunClaim = {
    runId,
    owner: holder.owner,
    token: holder.token,
    recovered,
    attempts,
    ...(previousUntil !== undefined ? { sincePreviousHolderMs: Date.now() - previousUntil } : {}),
    get expiresAt() {
      return new Date(holder.expiresAt ?? 0);
    },
    renew: () =>
      underLock("renew", async () => {
        const current = await readClaimHolder(lockFile);
        if (current?.id !== holder.id || !isLive(current)) {
          throw new RunConflictError({
            operation: "renew",
            runId,
            reason: "claim",
            message: `The claim on run "${runId}" was lost: ${current?.id === holder.id ? "it expired" : "another process took the run over"} (lock ${lockFile}).`,
          });
        }
        holder.expiresAt = new Date(Date.now() + leaseMs).toISOString();
        await writeFile(lockFile, text(), { mode: 0o600 });
      }),
    release: (releaseOptions = {}) =>
      underLock("release", async () => {
        if (!(await isCurrent())) return;
        await options.onRelease?.(releaseOptions);
        await unlink(lockFile).catch(() => {});
      }),
  };
  claimIds.set(claim, holder.id);
  return claim;
}

/** True when the file was written less than `ageMs` ago. */
async function isRecent(file: string, ageMs: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(file)).mtimeMs < ageMs;
  } catch {
    return false;
  }
}

/** A token larger than `after` and than any handed out here before. */
function nextToken(after: unknown): number {
  lastToken = Math.max(Date.now(), lastToken + 1, typeof after === "number" ? after + 1 : 0);
  return lastToken;
}

function refusal(
  runId: string,
  lockFile: string,
  current: ClaimHolder | undefined,
): RunNotResumableError {
  const where = current ? `process ${current.pid} on ${current.hostname}` : undefined;
  const who = current
    ? `${current.owner && current.owner !== `${current.hostname}:${current.pid}` ? `${current.owner} (${where})` : where} since ${current.claimedAt}`
    : "another process";
  const until = current?.expiresAt
    ? `, whose claim expires at ${current.expiresAt} unless renewed`
    : "";
  return new RunNotResumableError(
    runId,
    "claimed",
    `Run "${runId}" is being worked on by ${who}${until} (lock ${lockFile}). Wait for it to finish (a stalled or dead holder's claim expires on its own); if that process is gone, resume with { takeOver: true }.`,
    { takeOver: true },
  );
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
