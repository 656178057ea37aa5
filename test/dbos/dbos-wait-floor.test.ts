import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import type { Approver } from "../../src/agent/approver.js";
import { useDbosTestBed } from "./dbos-test-setup.js";

/** The reads of the answers the run waits for (`peek`), as they happen. */
let peeks = 0;

// The service says the question expired a minute ago, yet it is still pending
// (a service whose clock is behind, or that marks expiry late): nobody answers.
const bed = useDbosTestBed({
  wrapApprover: (approver: Approver): Approver => ({
    ask: (actions, context) => approver.ask(actions, context),
    read: (ticket, actions, context) => approver.read(ticket, actions, context),
    peek: async () => {
      peeks++;
      return { pending: true, expiresAt: new Date(Date.now() - 60_000) };
    },
  }),
});

it("a run whose question is past its expiry but still pending reads it again after a wait, not in a loop", async () => {
  const id = await bed.newCallback();
  const run = await bed.durable.start(`Delete callback ${id}.`);
  await bed.questionOf(run.runId);
  const before = peeks;
  await sleep(3_000);
  // At most one read a second (the built-in worker's shortest wait), and at least one.
  const read = peeks - before;
  expect(read).toBeGreaterThan(0);
  expect(read).toBeLessThanOrEqual(4);
  expect(bed.orders.callbacks().map((callback) => callback.id)).toContain(id);
});
