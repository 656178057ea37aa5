import { expect, it } from "vitest";
import { useDbosTestBed } from "./dbos-test-setup.js";

// The check of pending approvals runs every second, on DBOS's schedule; nothing else wakes the runs.
const bed = useDbosTestBed({ checkSchedule: "* * * * * *" });

it("the scheduled check wakes a run whose question was answered: the approved call runs", async () => {
  const id = await bed.newCallback();
  const run = await bed.durable.start(`Delete callback ${id}.`);
  bed.messaging.answerInteraction(await bed.questionOf(run.runId), "approve");
  expect(await run.result()).toEqual({ runId: run.runId, status: "completed", output: "Done." });
  expect(bed.orders.callbacks().map((callback) => callback.id)).not.toContain(id);
});
