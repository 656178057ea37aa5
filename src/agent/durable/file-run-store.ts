import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { describeThrown } from "../describe-thrown.js";
import { runConcurrently } from "../run-concurrently.js";
import { RunNotFoundError, RunStateError, RunStoreError } from "./durable-errors.js";
import { claimWithLockFile } from "./file-run-claim.js";
import { parseRunState, serializeRunState } from "./parse-run-state.js";
import { findRunIdProblem } from "./run-id.js";
import type { RunState } from "./run-state.js";
import {
  type RunClaim,
  type RunList,
  type RunListOptions,
  type RunStore,
  type RunSummary,
  summarizeRunState,
} from "./run-store.js";

/** Options of {@link FileRunStore}. */
export interface FileRunStoreOptions {
  /**
   * The state directory; runs go in its `runs/` folder, one `<runId>.json`
   * file each.
   * @default the `SWITCHYARD_STATE_DIR` environment variable, else `.switchyard` in the working directory
   */
  directory?: string | undefined;
}

/** Files read at the same time when listing. */
const listConcurrency = 16;

/**
 * The embedded run store: one JSON file per run under a local directory.
 * Each save writes a temporary file, flushes it to disk and renames it over
 * the old one, so a crash leaves the previous state or the new one, never a
 * torn file. A run being worked on is claimed with a `<runId>.lock` file, so
 * two processes sharing the directory never resume the same run at once.
 * Each approval that let a call run leaves a marker in `used-approvals/`,
 * kept when runs are deleted, so no approval runs its call twice.
 * Made for one machine (or a shared disk); `docs/scaling.md` describes a
 * store for many workers.
 *
 * @example
 * const store = new FileRunStore(); // $SWITCHYARD_STATE_DIR or ./.switchyard
 * const { runs } = await store.list({ status: "suspended" });
 */
export class FileRunStore implements RunStore {
  /** The absolute state directory. */
  readonly directory: string;
  readonly #runsDirectory: string;
  readonly #usedApprovalsDirectory: string;

  constructor(options: FileRunStoreOptions = {}) {
    const given = options?.directory;
    if (given !== undefined && (typeof given !== "string" || given.trim() === "")) {
      throw new ConfigurationError(
        "FileRunStore directory must be a non-empty path; omit it to use SWITCHYARD_STATE_DIR or ./.switchyard.",
      );
    }
    const fromEnvironment = process.env.SWITCHYARD_STATE_DIR;
    this.directory = resolve(
      given ??
        (fromEnvironment !== undefined && fromEnvironment.trim() !== ""
          ? fromEnvironment
          : join(process.cwd(), ".switchyard")),
    );
    this.#runsDirectory = join(this.directory, "runs");
    this.#usedApprovalsDirectory = join(this.directory, "used-approvals");
  }

  /** The file holding a run's state. Throws a ConfigurationError for an id that is not path-safe. */
  pathOf(runId: string): string {
    const problem = findRunIdProblem(runId);
    if (problem) throw new ConfigurationError(`${capitalize(problem)}.`);
    return join(this.#runsDirectory, `${runId}.json`);
  }

  async save(state: RunState): Promise<void> {
    const checked = parseRunState(state, "the state to save");
    const file = this.pathOf(checked.runId);
    const temporary = join(
      this.#runsDirectory,
      `.${checked.runId}.${randomBytes(6).toString("hex")}.tmp`,
    );
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      await mkdir(this.#runsDirectory, { recursive: true, mode: 0o700 });
      handle = await open(temporary, "wx", 0o600);
      await handle.writeFile(serializeRunState(checked), "utf8");
      await handle.sync();
      await handle.close();
      handle = undefined;
      await rename(temporary, file);
      await syncDirectory(this.#runsDirectory);
    } catch (error) {
      await handle?.close().catch(() => {});
      await unlink(temporary).catch(() => {});
      throw new RunStoreError(
        {
          operation: "save",
          runId: checked.runId,
          message: `Could not save run "${checked.runId}" to ${file}: ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
  }

  async load(runId: string): Promise<RunState> {
    const file = this.pathOf(runId);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if (errorCode(error) === "ENOENT") {
        throw new RunNotFoundError(runId, `the run store at ${this.directory}`);
      }
      throw new RunStoreError(
        { operation: "load", runId, message: `Could not read ${file}: ${describeThrown(error)}` },
        { cause: error },
      );
    }
    const state = parseRunState(text, file);
    if (state.runId !== runId) {
      throw new RunStateError(
        file,
        `it holds run "${state.runId}", not "${runId}"; the file was renamed or copied by hand`,
      );
    }
    return state;
  }

  async list(options: RunListOptions = {}): Promise<RunList> {
    const wanted = options.status === undefined ? undefined : [options.status].flat();
    let names: string[];
    try {
      names = await readdir(this.#runsDirectory);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return { runs: [], unreadable: [] };
      throw new RunStoreError(
        {
          operation: "list",
          message: `Could not list ${this.#runsDirectory}: ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
    const runIds = names
      .filter((name) => name.endsWith(".json") && !name.startsWith("."))
      .map((name) => name.slice(0, -".json".length));
    const runs: RunSummary[] = [];
    const unreadable: RunStateError[] = [];
    await runConcurrently(runIds, listConcurrency, async (runId) => {
      try {
        const state = await this.load(runId);
        if (!wanted || wanted.includes(state.status)) runs.push(summarizeRunState(state));
      } catch (error) {
        unreadable.push(
          error instanceof RunStateError
            ? error
            : new RunStateError(join(this.#runsDirectory, `${runId}.json`), describeThrown(error), {
                cause: error,
              }),
        );
      }
    });
    runs.sort(
      (first, second) =>
        second.updatedAt.localeCompare(first.updatedAt) || first.runId.localeCompare(second.runId),
    );
    unreadable.sort((first, second) => first.source.localeCompare(second.source));
    return { runs, unreadable };
  }

  /** Claims the run with a lock file beside its state; see {@link RunStore.claim}. */
  async claim(runId: string, options: { takeOver?: boolean } = {}): Promise<RunClaim> {
    const file = this.pathOf(runId);
    try {
      await mkdir(this.#runsDirectory, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new RunStoreError(
        {
          operation: "claim",
          runId,
          message: `Could not claim run "${runId}": ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
    return claimWithLockFile(runId, `${file.slice(0, -".json".length)}.lock`, options);
  }

  /**
   * Creates `used-approvals/<sha256 of the interaction id>.json` if it does
   * not exist (an exclusive create, so two processes cannot both succeed);
   * see {@link RunStore.markApprovalUsed}.
   */
  async markApprovalUsed(interactionId: string, fingerprint: string): Promise<boolean> {
    const directory = this.#usedApprovalsDirectory;
    const name = createHash("sha256").update(interactionId).digest("hex");
    const file = join(directory, `${name}.json`);
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      handle = await open(file, "wx", 0o600);
      const record = { interactionId, fingerprint, usedAt: new Date().toISOString() };
      await handle.writeFile(`${JSON.stringify(record)}\n`, "utf8");
      await handle.sync();
      await handle.close();
      handle = undefined;
      await syncDirectory(directory);
      return true;
    } catch (error) {
      await handle?.close().catch(() => {});
      if (errorCode(error) === "EEXIST") return false;
      throw new RunStoreError(
        {
          operation: "markApprovalUsed",
          message: `Could not record that the approval in interaction "${interactionId}" was used (${file}): ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
  }

  async delete(runId: string): Promise<boolean> {
    const file = this.pathOf(runId);
    try {
      await unlink(file);
      return true;
    } catch (error) {
      if (errorCode(error) === "ENOENT") return false;
      throw new RunStoreError(
        {
          operation: "delete",
          runId,
          message: `Could not delete ${file}: ${describeThrown(error)}`,
        },
        { cause: error },
      );
    }
  }
}

/** Makes the rename itself durable; some systems (Windows) cannot open a directory, which is fine. */
async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, "r");
    await handle.sync();
  } catch {
    // Best effort: the file itself was flushed before the rename.
  } finally {
    await handle?.close().catch(() => {});
  }
}

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
