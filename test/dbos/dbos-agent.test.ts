import { expect, it } from "vitest";
import { dbosAgent } from "../../src/dbos/index.js";
import { useDbosTestBed } from "./dbos-test-setup.js";

// No scheduled check: the runs are woken by the test's own check or wake().
const bed = useDbosTestBed();

it("runs an approved call once and a denied call never, each run a DBOS workflow woken by the check of pending approvals", async () => {
  const { durable, messaging, orders, model } = bed;
  const [approvedId, deniedId] = [await bed.newCallback(), await bed.newCallback()];
  orders.clearRequests();

  const approved = await durable.start(`Delete callback ${approvedId}.`);
  const denied = await durable.start(`Delete callback ${deniedId}.`);
  const [approvedQuestion, deniedQuestion] = await Promise.all([
    bed.questionOf(approved.runId),
    bed.questionOf(denied.runId),
  ]);
  // Nobody answered yet: the check wakes no run.
  expect(await durable.checkApprovals()).toEqual([]);

  messaging.answerInteraction(approvedQuestion, "approve");
  messaging.answerInteraction(deniedQuestion, "deny");
  expect((await durable.checkApprovals()).sort()).toEqual([approved.runId, denied.runId].sort());

  expect(await approved.result()).toEqual({
    runId: approved.runId,
    status: "completed",
    output: "Done.",
  });
  expect(await denied.result()).toEqual({
    runId: denied.runId,
    status: "completed",
    output: "Done.",
  });
  const deletions = orders.requests
    .filter((request) => request.method === "DELETE" && request.path === "/callbacks")
    .map((request) => request.body);
  expect(deletions).toEqual([[approvedId]]);
  expect(orders.callbacks().map((callback) => callback.id)).toContain(deniedId);
  expect(orders.callbacks().map((callback) => callback.id)).not.toContain(approvedId);
  // Each run asked the model twice: the call, then the answer after the tool's result.
  expect(model.requests).toHaveLength(4);
  const deniedState = await durable.runStore.load(denied.runId);
  expect(deniedState.finishedCalls?.map((call) => call.status)).toEqual(["refused"]);
});

it("wake(runId) has a run read its answer at once", async () => {
  const id = await bed.newCallback();
  const run = await bed.durable.start(`Delete callback ${id}.`);
  bed.messaging.answerInteraction(await bed.questionOf(run.runId), "approve");
  // No scheduled check, and the run would read its question again in an hour: wake() alone ends the wait.
  await bed.durable.wake(run.runId);
  expect(await bed.durable.retrieve(run.runId).result()).toEqual({
    runId: run.runId,
    status: "completed",
    output: "Done.",
  });
  expect(bed.orders.callbacks().map((callback) => callback.id)).not.toContain(id);
});

it("starting a run id again gives the run already started, not a second run", async () => {
  const id = await bed.newCallback();
  const first = await bed.durable.start(`Delete callback ${id}.`, { runId: `again-${id}` });
  const second = await bed.durable.start("Something else entirely.", { runId: `again-${id}` });
  bed.messaging.answerInteraction(await bed.questionOf(first.runId), "approve");
  await bed.durable.wake(first.runId);
  expect(await second.result()).toEqual({
    runId: first.runId,
    status: "completed",
    output: "Done.",
  });
  const state = await bed.durable.runStore.load(first.runId);
  expect(state.messages.find((message) => message.role === "user")?.content).toBe(
    `Delete callback ${id}.`,
  );
});

it("a run that fails ends its workflow with the error, on one line", async () => {
  const run = await bed.durable.start("A task that cannot be answered.");
  const outcome = await run.result();
  expect(outcome).toEqual({
    runId: run.runId,
    status: "failed",
    error: expect.stringContaining("the model is out of service"),
  });
  expect(outcome.error).not.toContain("\n");
  expect((await bed.durable.runStore.load(run.runId)).status).toBe("failed");
});

it("rejects options it cannot use, naming each problem", async () => {
  expect(() =>
    dbosAgent(
      { model: bed.model, runStore: bed.durable.runStore },
      {
        databaseUrl: "mysql://nowhere",
        name: "no spaces allowed",
        dbosSchema: "Upper; DROP",
        checksPerRound: 0,
      },
    ),
  ).toThrow(
    /leave runStore and runQueue out[\s\S]*databaseUrl must be a postgres:\/\/ URL[\s\S]*name must be[\s\S]*dbosSchema "Upper; DROP" is not valid[\s\S]*checksPerRound/,
  );
  await expect(bed.durable.start("Anything.", { runId: "../escape" })).rejects.toThrow(
    /run id "..\/escape" is not valid/,
  );
});
