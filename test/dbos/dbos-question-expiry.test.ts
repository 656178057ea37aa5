import { expect, it } from "vitest";
import { useDbosTestBed } from "./dbos-test-setup.js";

// Questions stay open one second; no scheduled check, and a run would read its question again only in an hour.
const bed = useDbosTestBed({ pendingExpiresInSeconds: 1 });

it("a run waits for its question no longer than the question's expiry: nobody answered, nothing runs", async () => {
  const id = await bed.newCallback();
  const run = await bed.durable.start(`Delete callback ${id}.`);
  await bed.questionOf(run.runId);
  expect(await run.result()).toEqual({ runId: run.runId, status: "completed", output: "Done." });
  const state = await bed.durable.runStore.load(run.runId);
  expect(state.finishedCalls?.map((call) => call.status)).toEqual(["expired"]);
  expect(bed.orders.callbacks().map((callback) => callback.id)).toContain(id);
});
