import type { RunStateError } from "../agent/durable/durable-errors.js";
import type { RunSummary } from "../agent/durable/run-store.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";
import type { CliIo } from "./cli-io.js";
import { type CliRunRecord, CliRunRecordError } from "./cli-run-records.js";
import { CommandError } from "./command-error.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { openRunStorage, type RunStorage } from "./open-run-storage.js";
import type { RunsArguments } from "./parse-arguments.js";

/** One run as `switchyard runs --json` prints it. */
export interface RunListing {
  runId: string;
  /** The example it belongs to; `null` when it was not started by `switchyard run --no-wait`. */
  example: string | null;
  task: string | null;
  status: RunSummary["status"];
  createdAt: string;
  updatedAt: string;
  stepCount: number;
  /** The approval requests the run waits for. */
  pendingApprovals: Array<{ toolCallId: string; toolName: string; interactionId: string | null }>;
  /** Calls whose outcome is unknown (started when a worker stopped, never run again). */
  outcomeUnknownCalls: Array<{ toolCallId: string; toolName: string; stepNumber: number }>;
}

/** What `switchyard runs --json` prints. */
export interface RunsReport {
  /** The state directory's absolute path; `null` when the runs are in PostgreSQL. */
  directory: string | null;
  /** The PostgreSQL schema holding the runs (`SWITCHYARD_DATABASE_URL`); `null` for a directory. */
  database: { schema: string } | null;
  /** Where the runs are kept, in words: the directory, or the database and schema. */
  where: string;
  /** Most recently updated first. */
  runs: RunListing[];
  /** Saved files that could not be read, each with what is wrong. */
  unreadable: Array<{ file: string; problem: string }>;
}

/**
 * Lists the runs saved in the state directory, with the example each
 * belongs to and the approvals it waits for: a table on stdout (or with
 * `json`, one JSON object), and a warning on stderr for each file that
 * cannot be read. Resolves to the exit status (0, or 1 when the directory
 * cannot be read).
 */
export async function listRuns(args: Omit<RunsArguments, "help">, io: CliIo): Promise<ExitCode> {
  const state = await openRunStorage(io.env);
  try {
    return await listFrom(state, args, io);
  } finally {
    await state.close().catch(() => {});
  }
}

/** Every page of the store's listing, in order. */
async function listAll(state: RunStorage, args: Omit<RunsArguments, "help">) {
  const runs: RunSummary[] = [];
  const unreadable: RunStateError[] = [];
  let after: string | undefined;
  do {
    const page = await state.store.list({
      ...(args.status ? { status: args.status } : {}),
      limit: 1000,
      ...(after ? { after } : {}),
    });
    runs.push(...page.runs);
    unreadable.push(...page.unreadable);
    after = page.nextCursor;
  } while (after);
  return { runs, unreadable };
}

async function listFrom(
  state: RunStorage,
  args: Omit<RunsArguments, "help">,
  io: CliIo,
): Promise<ExitCode> {
  let listed: Awaited<ReturnType<typeof listAll>>;
  try {
    listed = await listAll(state, args);
  } catch (error) {
    throw new CommandError((error as Error).message, exitCodes.notCompleted, { cause: error });
  }
  const unreadable = listed.unreadable.map((error) => ({
    file: error.source,
    problem: error.problems.join("; "),
  }));
  const runs = await Promise.all(
    listed.runs.map(async (summary): Promise<RunListing> => {
      let record: CliRunRecord | undefined;
      try {
        record = await state.records.load(summary.runId);
      } catch (error) {
        if (!(error instanceof CliRunRecordError)) throw error;
        unreadable.push({ file: error.file, problem: error.problem });
      }
      return {
        runId: summary.runId,
        example: record?.example ?? null,
        task: record?.task ?? null,
        status: summary.status,
        createdAt: summary.createdAt,
        updatedAt: summary.updatedAt,
        stepCount: summary.stepCount,
        // A run that ended (cancelled: its questions withdrawn) waits for nothing.
        pendingApprovals: summary.pendingCalls
          .filter(
            (call) =>
              call.phase === "awaiting_approval" &&
              (summary.status === "suspended" || summary.status === "running"),
          )
          .map((call) => ({
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            interactionId: call.interactionId ?? null,
          })),
        outcomeUnknownCalls: summary.outcomeUnknownCalls ?? [],
      };
    }),
  );
  for (const { file, problem } of unreadable) {
    io.stderr.write(
      `warning: ${escapeUntrustedText(file)} cannot be read: ${escapeUntrustedText(problem)}\n`,
    );
  }
  if (args.json) {
    const report: RunsReport = {
      directory: state.directory ?? null,
      database: state.schema === undefined ? null : { schema: state.schema },
      where: state.where,
      runs,
      unreadable,
    };
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return exitCodes.completed;
  }
  if (runs.length === 0) {
    const which = args.status ? ` with status ${args.status.join(" or ")}` : "";
    io.stderr.write(`No runs${which} in ${state.where}.\n`);
    return exitCodes.completed;
  }
  io.stdout.write(formatTable(runs));
  if (runs.some((run) => run.status === "suspended")) {
    io.stderr.write("Resume a suspended run with: switchyard resume <run-id>\n");
  } else if (!args.status || args.status.includes("suspended")) {
    io.stderr.write("None of them is suspended: no run waits for an answer.\n");
  }
  return exitCodes.completed;
}

// Every cell is escaped: interaction ids come from the messaging service, the rest from saved files.
function formatTable(runs: readonly RunListing[]): string {
  const rows = [
    ["RUN ID", "EXAMPLE", "STATUS", "UPDATED", "PENDING APPROVALS"],
    ...runs.map((run) =>
      [
        run.runId,
        run.example ?? "-",
        run.outcomeUnknownCalls.length === 0
          ? run.status
          : `${run.status}, outcome unknown: ${run.outcomeUnknownCalls.map((call) => `${call.toolName} (${call.toolCallId})`).join(", ")}`,
        run.updatedAt.replace(/\.\d+Z$/, "Z"),
        run.pendingApprovals.length === 0
          ? "-"
          : run.pendingApprovals
              .map((call) => `${call.toolName} (${call.interactionId ?? "no interaction"})`)
              .join(", "),
      ].map(escapeUntrustedText),
    ),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join("  "),
    )
    .join("\n")
    .concat("\n");
}
