import { ConfigurationError } from "../errors/configuration-error.js";

/** What is wrong with a claim's lease (`leaseMs`); `undefined` when it is whole milliseconds, at least 100. */
export function leaseMsProblem(leaseMs: unknown): string | undefined {
  if (Number.isInteger(leaseMs) && (leaseMs as number) >= 100) return undefined;
  return "leaseMs must be a whole number of milliseconds, at least 100.";
}

/** `leaseMs`, when it is a lease a run store can keep ({@link leaseMsProblem}); else a `ConfigurationError` saying why. */
export function checkLeaseMs(leaseMs: number): number {
  const problem = leaseMsProblem(leaseMs);
  if (problem !== undefined) throw new ConfigurationError(problem);
  return leaseMs;
}
