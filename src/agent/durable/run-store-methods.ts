import type { RunStore } from "./run-store.js";

/**
 * Every method of the {@link RunStore} contract, each required: the agent
 * refuses a store lacking one, and the conformance suite checks a store
 * has them all.
 */
export const runStoreMethods = [
  "save",
  "load",
  "list",
  "delete",
  "claim",
  "claimNext",
  "startCall",
  "isApprovalUsed",
  "recordFinish",
  "schedule",
  "wake",
  "waitForDue",
] as const satisfies ReadonlyArray<keyof RunStore>;
