import type { RunResult } from "../agent/run-result.js";
import { escapeUntrustedText } from "../internal/untrusted-text.js";
import { buildRunReport, type RunReportContext } from "./build-run-report.js";
import type { CliIo } from "./cli-io.js";
import { describeFailure } from "./describe-failure.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { formatDuration } from "./format-text.js";

/** What {@link writeRunOutcome} needs besides the result. */
export interface RunOutcomeOptions {
  io: CliIo;
  /** Print the JSON report instead of the answer. */
  json: boolean;
  report: RunReportContext;
  /**
   * `run`: a suspended run stopped as `--no-wait` asked (exit 0). `resume`:
   * the answer is still pending and the run suspended again (exit 3).
   * @default "run"
   */
  command?: "run" | "resume" | undefined;
  /**
   * `switchyard run --no-wait`: stdout carries the run's id and nothing
   * else, so `id=$(switchyard run ... --no-wait)` captures the id of a run
   * that was saved (one that failed before it was, has none to print); the
   * answer stays on stderr, and `runs show` prints it again. (With `json`, the report, which holds both.)
   * @default false
   */
  noWait?: boolean | undefined;
}

/**
 * Writes how the run ended: a summary line on stderr (with the reason when it
 * did not complete, or what it waits for when it suspended), then on stdout
 * the JSON report, the answer, or for a suspended run (and for any run with
 * `noWait`) its id. Returns the exit status.
 */
export function writeRunOutcome(result: RunResult, options: RunOutcomeOptions): ExitCode {
  const { io, report } = options;
  const summary = summarize(result, report.durationMs, options.command === "resume");
  const json = () => io.stdout.write(`${JSON.stringify(buildRunReport(result, report))}\n`);

  if (result.status === "suspended" && result.runId !== undefined) {
    const waits = describeWaits(result);
    const resumed = options.command === "resume";
    io.stderr.write(
      resumed
        ? `still waiting (${summary}): ${waits.join(", ")} ${waits.length === 1 ? "is" : "are"} not answered yet; nothing was sent again.\n`
        : `run suspended (${summary}): waiting for ${waits.join(", ")}.\n`,
    );
    io.stderr.write(`Resume it once answered: switchyard resume ${result.runId}\n`);
    if (options.json) json();
    else io.stdout.write(`${result.runId}\n`);
    return resumed ? exitCodes.stillWaiting : exitCodes.completed;
  }

  const failure =
    result.status === "completed"
      ? undefined
      : describeFailure(result.error ?? new Error(`The run ended with status ${result.status}.`), {
          origins: report.origins,
        });
  io.stderr.write(
    failure
      ? `run ${result.status} (${summary}): ${failure.message}\n`
      : `run completed (${summary})\n`,
  );
  for (const call of result.outcomeUnknownCalls ?? []) {
    io.stderr.write(
      `outcome unknown: ${escapeUntrustedText(call.toolName)} (call ${escapeUntrustedText(call.toolCallId)}, step ${call.stepNumber}) had started when an earlier worker stopped; it was not run again. Check whether it took effect.\n`,
    );
  }
  if (options.json) {
    json();
  } else if (options.noWait) {
    // Only a saved run has an id to resume or show.
    if (result.state !== undefined && result.runId !== undefined) {
      io.stderr.write(
        `The run ${result.status === "completed" ? "completed" : "ended"} without stopping at an approval; its answer and steps are above, and switchyard runs show ${result.runId} prints them again. Only its id goes to stdout (--no-wait).\n`,
      );
      io.stdout.write(`${result.runId}\n`);
    }
  } else if (result.output !== "" && !(io.stdout.isTTY && io.stderr.isTTY)) {
    // On a terminal the answer was just shown as it streamed; elsewhere stdout carries it.
    io.stdout.write(`${result.output}\n`);
  }
  return failure ? failure.exitCode : exitCodes.completed;
}

/** `the approval of delete_callbacks (interaction int_1)`, one per call waiting. */
function describeWaits(result: RunResult): string[] {
  const waiting = (result.steps.at(-1)?.toolCalls ?? []).flatMap((call) =>
    call.status === "awaiting_approval"
      ? [`the approval of ${call.toolName} (interaction ${call.approval.interactionId})`]
      : [],
  );
  return waiting.length > 0 ? waiting : ["an approval"];
}

/**
 * `3 steps, 2 tool calls, 3402 tokens, 0.8s`. Steps and tokens count the
 * whole run; a resumed run's tool calls and time are only this process's,
 * and the summary says so, so the step count agrees with the header's.
 */
function summarize(result: RunResult, durationMs: number, resumed: boolean): string {
  const calls = result.steps.reduce((sum, step) => sum + step.toolCalls.length, 0);
  const steps = plural(result.steps.at(-1)?.stepNumber ?? result.steps.length, "step");
  const tokens = `${result.usage.totalTokens} tokens`;
  const toolCalls = plural(calls, "tool call");
  const time = formatDuration(durationMs);
  if (resumed) return `${steps}, ${tokens} in all; ${toolCalls}, ${time} in this resume`;
  return `${steps}, ${toolCalls}, ${tokens}, ${time}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
