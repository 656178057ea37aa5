/**
 * Exit statuses of the `switchyard` command: `completed` (0) when the run
 * completed (or, with `run --no-wait`, stopped at an approval as asked),
 * `notCompleted` (1) when it did not (`max_steps`, `failed`, `aborted`) or a
 * service could not be reached, `usage` (2) for bad usage or configuration
 * (an unknown example, flag or run id, a missing token, a token the service
 * rejected, an unreadable saved run), `stillWaiting` (3) when `resume` found
 * the approval still unanswered and suspended the run again.
 */
export const exitCodes = { completed: 0, notCompleted: 1, usage: 2, stillWaiting: 3 } as const;

/** One of the values of {@link exitCodes}. */
export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];
