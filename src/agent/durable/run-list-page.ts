import { ConfigurationError } from "../../errors/configuration-error.js";
import { type RunStateStatus, runStateStatuses } from "./run-state.js";
import type { RunListOptions, RunSummary } from "./run-store.js";

/** A listing's options, checked: the statuses wanted, where the page starts and its size. */
export interface RunListPage {
  /** `undefined`: every status. */
  statuses: RunStateStatus[] | undefined;
  /** The last run of the page before, in keyset order. */
  after: { updatedAt: string; runId: string } | undefined;
  limit: number;
  /** Only runs last saved longer ago than this, by the store's clock. */
  olderThanMs: number | undefined;
  /** Only runs whose id starts with this; `undefined`: every run. */
  runIdPrefix: string | undefined;
}

/** Runs on one page when `limit` is not given. */
export const defaultRunListLimit = 100;
const maximumRunListLimit = 1000;

/**
 * Checks `RunStore.list` options the same way for every store (an empty
 * `runIdPrefix` is no filter); throws a
 * ConfigurationError naming each problem. The cursor is opaque to callers:
 * the `updatedAt` and `runId` of the last run listed (the keyset).
 */
export function readRunListOptions(options: RunListOptions = {}): RunListPage {
  const problems: string[] = [];
  const statuses = options.status === undefined ? undefined : [options.status].flat();
  for (const status of statuses ?? []) {
    if (!runStateStatuses.includes(status)) {
      problems.push(
        `status ${JSON.stringify(status)} is not a run status; use one of ${runStateStatuses.join(", ")}.`,
      );
    }
  }
  const limit = options.limit ?? defaultRunListLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > maximumRunListLimit) {
    problems.push(`limit must be a whole number from 1 to ${maximumRunListLimit}.`);
  }
  const olderThanMs = options.olderThanMs;
  if (olderThanMs !== undefined && (!Number.isSafeInteger(olderThanMs) || olderThanMs < 0)) {
    problems.push("olderThanMs must be a whole number of milliseconds, at least 0.");
  }
  const runIdPrefix = options.runIdPrefix === "" ? undefined : options.runIdPrefix;
  if (
    runIdPrefix !== undefined &&
    (typeof runIdPrefix !== "string" || runIdPrefix.length > longestRunId)
  ) {
    problems.push(
      `runIdPrefix must be the text run ids start with, up to ${longestRunId} characters (e.g. "agui_"), or omitted for every run.`,
    );
  }
  let after: RunListPage["after"];
  if (options.after !== undefined) {
    after = decodeCursor(options.after);
    if (!after) {
      problems.push(
        "after is not a cursor this store returned; pass the nextCursor of the page before, or omit it for the first page.",
      );
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return { statuses, after, limit, olderThanMs, runIdPrefix };
}

/** The longest run id (see `isRunId`): a longer prefix names no run. */
const longestRunId = 128;

/** The cursor that goes on after this run. */
export function runListCursor(run: Pick<RunSummary, "updatedAt" | "runId">): string {
  return Buffer.from(JSON.stringify([run.updatedAt, run.runId])).toString("base64url");
}

/** True when `run` comes after the cursor's run in the keyset order (newest first, then run id). */
export function comesAfter(
  run: Pick<RunSummary, "updatedAt" | "runId">,
  cursor: { updatedAt: string; runId: string },
): boolean {
  const byTime = cursor.updatedAt.localeCompare(run.updatedAt);
  return byTime > 0 || (byTime === 0 && run.runId.localeCompare(cursor.runId) > 0);
}

function decodeCursor(cursor: unknown): RunListPage["after"] {
  if (typeof cursor !== "string") return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string"
    ) {
      return { updatedAt: value[0], runId: value[1] };
    }
  } catch {
    // Not base64url JSON: reported as not a cursor.
  }
  return undefined;
}
