/**
 * One process of the FileRunStore budget test: claims the due runs of the
 * state directory `BUDGET_DIRECTORY` with a budget of `BUDGET_RATE` checks
 * a second, `BUDGET_CALLS` times, and prints the ids it claimed as one JSON
 * line. It exits holding its claims (they lapse with the process).
 */

import { FileRunStore } from "../../src/stores/file-run-store.js";

const store = new FileRunStore({ directory: process.env.BUDGET_DIRECTORY ?? "" });
const claimed: string[] = [];
for (let call = 0; call < Number(process.env.BUDGET_CALLS ?? "1"); call++) {
  const claims = await store.claimDue({
    max: 10,
    checksPerSecond: Number(process.env.BUDGET_RATE),
    leaseMs: 60_000,
  });
  claimed.push(...claims.map((claim) => claim.runId));
}
process.stdout.write(`${JSON.stringify(claimed)}\n`);
