import { expect, it } from "vitest";
import { approverDirectory } from "../../src/agent/approval/approver-directory.js";
import { useDbosTestBed } from "./dbos-test-setup.js";

// With an approver directory, who started a durable run is kept in its state:
// the question of a run Alice started is answered on Alice's own messaging link.
const bed = useDbosTestBed({
  approverDirectory: (messaging) =>
    approverDirectory({
      people: [
        {
          id: "alice",
          name: "Alice Ng",
          roles: ["oncall"],
          identities: { messaging: [messaging.approverLinkId] },
        },
        {
          id: "bob",
          name: "Bob Roy",
          roles: ["oncall"],
          identities: { agUi: ["bob@example.com"] },
        },
      ],
    }),
});

const deletedIds = () =>
  bed.orders.requests
    .filter((request) => request.method === "DELETE" && request.path === "/callbacks")
    .flatMap((request) => request.body as string[]);

it("start({ startedBy }) is kept in the run's state: the starter's own approval runs nothing, another person's runs the call", async () => {
  const [aliceStarts, bobStarts] = [await bed.newCallback(), await bed.newCallback()];
  bed.orders.clearRequests();
  const byAlice = await bed.durable.start(`Delete callback ${aliceStarts}.`, {
    startedBy: "alice",
  });
  const byBob = await bed.durable.start(`Delete callback ${bobStarts}.`, {
    startedBy: { channel: "agUi", id: "bob@example.com" },
  });
  for (const run of [byAlice, byBob]) {
    const question = await bed.questionOf(run.runId);
    expect((await bed.durable.runStore.load(run.runId)).startedBy).toEqual(
      run === byAlice ? "alice" : { channel: "agUi", id: "bob@example.com" },
    );
    // Alice answers both questions on her messaging link.
    bed.messaging.answerInteraction(question, "approve");
    await bed.durable.wake(run.runId);
    expect(await run.result()).toMatchObject({ status: "completed" });
  }
  expect(deletedIds()).toEqual([bobStarts]);
  const aliceState = await bed.durable.runStore.load(byAlice.runId);
  expect(aliceState.finishedCalls?.[0]?.approval).toMatchObject({
    outcome: "refused",
    code: "self_approval",
    people: [{ id: "alice", channel: "messaging" }],
  });
  const bobState = await bed.durable.runStore.load(byBob.runId);
  expect(bobState.finishedCalls?.[0]?.approval).toMatchObject({
    outcome: "approved",
    people: [{ id: "alice" }],
  });
  await expect(bed.durable.start("Anything.", { startedBy: "" })).rejects.toThrow(
    /startedBy must be a person's id/,
  );
});
