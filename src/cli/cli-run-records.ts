import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { findRunIdProblem } from "../agent/durable/run-id.js";
import { CommandError, usageError } from "./command-error.js";
import { exitCodes } from "./exit-codes.js";
import { type ServiceName, serviceNames } from "./read-service-settings.js";

/** The `format` marker of every record; anything else is not one. */
export const cliRunRecordFormat = "switchyard.cli-run";

/**
 * What the command keeps beside a saved run, since a run state holds the
 * conversation but not which agent it belongs to: the example (to rebuild
 * the same tools and instructions on `resume`), the task, and where each
 * service was (addresses without credentials).
 */
export interface CliRunRecord {
  format: typeof cliRunRecordFormat;
  runId: string;
  example: string;
  /** Redacted, as shown in the report. */
  task: string;
  /** ISO 8601. */
  createdAt: string;
  services: Record<ServiceName, { simulated: boolean; url: string }>;
}

/** A run's record that cannot be read; a usage error (exit status 2). */
export class CliRunRecordError extends CommandError {
  override readonly name: string = "CliRunRecordError";
  readonly file: string;
  /** What is wrong with it. */
  readonly problem: string;

  constructor(runId: string, file: string, problem: string, options?: { cause?: unknown }) {
    super(
      `${file}, the record of which example run "${runId}" belongs to, cannot be read (${problem}); restore it, or delete it and the run's state to drop the run.`,
      exitCodes.usage,
      options,
    );
    this.file = file;
    this.problem = problem;
  }
}

/**
 * The command's records of its durable runs: one `<runId>.json` file each in
 * the state directory's `cli/` folder, next to the `runs/` folder the
 * `FileRunStore` owns. Written whole (a temporary file renamed over), so a
 * reader never sees half a record.
 */
export class CliRunRecords {
  /** The absolute `cli/` folder. */
  readonly directory: string;

  constructor(stateDirectory: string) {
    this.directory = join(stateDirectory, "cli");
  }

  /** The file holding a run's record. */
  pathOf(runId: string): string {
    const problem = findRunIdProblem(runId);
    if (problem) throw usageError(`The ${problem}.`);
    return join(this.directory, `${runId}.json`);
  }

  /** Writes the record of a run about to start. */
  async save(record: CliRunRecord): Promise<void> {
    const file = this.pathOf(record.runId);
    const temporary = join(
      this.directory,
      `.${record.runId}.${randomBytes(6).toString("hex")}.tmp`,
    );
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, file);
    } catch (error) {
      await unlink(temporary).catch(() => {});
      throw error;
    }
  }

  /**
   * The record of a run; `undefined` when there is none (the run was not
   * started by `switchyard run --no-wait`). Throws a `CliRunRecordError`
   * when it cannot be read.
   */
  async load(runId: string): Promise<CliRunRecord | undefined> {
    const file = this.pathOf(runId);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return undefined;
      throw new CliRunRecordError(runId, file, String(error), { cause: error });
    }
    const problem = findRecordProblem(text, runId);
    if (problem) throw new CliRunRecordError(runId, file, problem);
    return JSON.parse(text) as CliRunRecord;
  }

  /** Removes a run's record; nothing when there is none. */
  async delete(runId: string): Promise<void> {
    await unlink(this.pathOf(runId)).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    });
  }
}

function findRecordProblem(text: string, runId: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  if (typeof value !== "object" || value === null) return "not a JSON object";
  const record = value as Partial<Record<keyof CliRunRecord, unknown>>;
  if (record.format !== cliRunRecordFormat) return `format is not "${cliRunRecordFormat}"`;
  if (record.runId !== runId) return `it names run ${JSON.stringify(record.runId)}`;
  for (const key of ["example", "task", "createdAt"] as const) {
    if (typeof record[key] !== "string") return `${key} is not a string`;
  }
  const services = record.services as Record<string, { simulated?: unknown; url?: unknown }>;
  if (typeof services !== "object" || services === null) return "services is missing";
  for (const service of serviceNames) {
    const origin = services[service];
    if (typeof origin?.simulated !== "boolean" || typeof origin.url !== "string") {
      return `services.${service} is not {simulated, url}`;
    }
  }
  return undefined;
}
