/**
 * Exit statuses of the `switchyard` command: `completed` (0) when the run
 * completed, `notCompleted` (1) when it did not (`max_steps`, `failed`,
 * `aborted`) or a service could not be reached, `usage` (2) for bad usage or
 * configuration (an unknown example or flag, a missing token, a token the
 * service rejected).
 */
export const exitCodes = { completed: 0, notCompleted: 1, usage: 2 } as const;

/** One of the values of {@link exitCodes}. */
export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];
