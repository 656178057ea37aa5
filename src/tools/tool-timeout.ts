/** The longest delay a Node timer keeps (2^31 - 1 ms); a longer one fires at once. */
export const maxTimerMs = 2_147_483_647;

/**
 * What is wrong with a tool timeout, or `undefined` when it is absent or a
 * whole number of milliseconds from 1 to {@link maxTimerMs}.
 */
export function findTimeoutProblem(timeoutMs: unknown): string | undefined {
  if (timeoutMs === undefined) return undefined;
  if (
    typeof timeoutMs !== "number" ||
    !Number.isInteger(timeoutMs) ||
    timeoutMs < 1 ||
    timeoutMs > maxTimerMs
  ) {
    return `timeoutMs must be a whole number of milliseconds from 1 to ${maxTimerMs}; got ${JSON.stringify(timeoutMs) ?? String(timeoutMs)}.`;
  }
  return undefined;
}
