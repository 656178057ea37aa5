import { randomBytes } from "node:crypto";
import { readFile, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { threadId } from "node:worker_threads";
import { describeThrown } from "../agent/describe-thrown.js";
import { RunStoreError } from "../agent/durable/durable-errors.js";

/**
 * A lock older than this whose holder cannot be checked (it runs on another
 * machine sharing the directory) was left by a crash, and is removed.
 */
const staleLockMs = 10_000;

/** Who holds a short lock, as its file says. */
interface LockHolder {
  pid: number;
  hostname: string;
  /** The thread of the process that wrote it (absent in older files). */
  thread?: number | undefined;
  /** Names the call of `withLockFile` that wrote it (absent in older files). */
  call?: string | undefined;
}

/**
 * The calls of `withLockFile` under way in this thread. A lock naming this
 * process and thread but none of them was left by an earlier process that
 * had this process's id (a container restarted numbers its processes as
 * before, under the same host name): its holder is gone, though a process
 * of that id runs.
 */
const callsHere = new Set<string>();

/**
 * Runs `body` holding the lock file `lockFile` (created exclusively),
 * waiting while another holds it: a check and a write (compare-and-set, a
 * claim taken over) must not interleave with another process's. A lock
 * whose holder is gone is removed: at once when it names a process of this
 * machine that no longer runs (or this process, in a call not under way
 * here: an earlier process had its id), after 10 s when its holder runs
 * elsewhere; a live holder of this machine is waited for however slow it
 * is, so two writers never pass the same check. Rejects with a `RunStoreError`
 * (`operation`) after waiting 20 s, naming the run (`runId`) or what else
 * is locked (`subject`).
 */
export async function withLockFile<T>(
  lockFile: string,
  what: { operation: string; runId?: string | undefined; subject?: string | undefined },
  body: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + 2 * staleLockMs;
  const call = randomBytes(8).toString("hex");
  const mine: LockHolder = { pid: process.pid, hostname: hostname(), thread: threadId, call };
  callsHere.add(call);
  try {
    for (;;) {
      try {
        await writeFile(lockFile, `${JSON.stringify(mine)}\n`, { flag: "wx", mode: 0o600 });
        break;
      } catch (error) {
        const held = (error as { code?: unknown }).code === "EEXIST";
        if (!held || Date.now() > deadline) {
          throw new RunStoreError(
            {
              operation: what.operation,
              runId: what.runId,
              message: `Could not lock ${what.subject ?? `run "${what.runId}"`} for ${what.operation} (${lockFile}): ${held ? await describeHolder(lockFile) : describeThrown(error)}`,
            },
            { cause: error },
          );
        }
        if (!(await removeIfAbandoned(lockFile, mine))) await sleep(2 + Math.random() * 8);
      }
    }
    try {
      return await body();
    } finally {
      await unlink(lockFile).catch(() => {});
    }
  } finally {
    callsHere.delete(call);
  }
}

/**
 * Removes the lock when its holder is gone, judging it again under
 * `<lockFile>.breaking` (created exclusively): of processes finding one
 * abandoned lock at once, one removes it, and none removes the lock a live
 * process created after it (judged abandoned, then removed, a lock taken
 * meanwhile let two holders in). A `.breaking` file whose own holder is
 * gone is removed the same way, without a lock of its own: it is held only
 * between a read and a removal. True when the lock was removed.
 */
async function removeIfAbandoned(lockFile: string, mine: LockHolder): Promise<boolean> {
  if (!(await isAbandoned(lockFile))) return false;
  const breaking = `${lockFile}.breaking`;
  try {
    await writeFile(breaking, `${JSON.stringify(mine)}\n`, { flag: "wx", mode: 0o600 });
  } catch {
    // Another is removing it; a process killed while removing left this.
    if (await isAbandoned(breaking)) await unlink(breaking).catch(() => {});
    return false;
  }
  try {
    if (!(await isAbandoned(lockFile))) return false;
    await unlink(lockFile).catch(() => {});
    return true;
  } finally {
    await unlink(breaking).catch(() => {});
  }
}

/** True when the lock's holder is certainly gone, or ran elsewhere and the lock is stale. */
async function isAbandoned(lockFile: string): Promise<boolean> {
  const holder = await readHolder(lockFile);
  if (holder && holder.hostname === hostname()) {
    // Another thread of this process keeps calls of its own: it runs.
    if (holder.pid === process.pid && (holder.thread ?? 0) === threadId) {
      return !callsHere.has(holder.call ?? "");
    }
    return !isRunning(holder.pid);
  }
  const since = await stat(lockFile).then(
    (found) => found.mtimeMs,
    () => Date.now(),
  );
  return Date.now() - since > staleLockMs;
}

async function readHolder(lockFile: string): Promise<LockHolder | undefined> {
  try {
    const value = JSON.parse(await readFile(lockFile, "utf8")) as Partial<LockHolder>;
    return typeof value.pid === "number" && typeof value.hostname === "string"
      ? {
          pid: value.pid,
          hostname: value.hostname,
          ...(typeof value.thread === "number" ? { thread: value.thread } : {}),
          ...(typeof value.call === "string" ? { call: value.call } : {}),
        }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Who holds the lock this process gave up waiting for, and what to do about it. */
async function describeHolder(lockFile: string): Promise<string> {
  const holder = await readHolder(lockFile);
  if (!holder) {
    return "it is held by another process, which the lock file does not name. If no process holds it, remove the file.";
  }
  const who = `process ${holder.pid} on ${holder.hostname}`;
  if (holder.hostname !== hostname()) {
    return `it is held by ${who}, another machine sharing the directory. Wait for that process to finish; if it is gone, its lock is removed ${staleLockMs / 1000} s after it was written.`;
  }
  return `it is held by ${who}, which still runs. Wait for that process to finish; if it is stuck, stop it (its lock is removed once it is gone).`;
}

/** Whether a process of this machine runs (signal 0 checks without signalling). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}
