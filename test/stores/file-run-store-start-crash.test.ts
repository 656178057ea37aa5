import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { RunState } from "../../src/agent/durable/run-state.js";
import type { CallStart } from "../../src/agent/durable/run-store.js";
import { FileRunStore } from "../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../src/testing/index.js";
import { callbackTools, useTemporaryDirectories } from "../agent/durable/durable-helpers.js";
import { suspendedRunState } from "../helpers/run-state-fixtures.js";

const makeDirectory = useTemporaryDirectories();

const approval = "run-a.3q2-7wEiRKe8sYdq5Bn0WQ";
const start: CallStart = {
  toolCallId: "call_1",
  fingerprint: "sha256:00",
  contentKey: "k1",
  approval,
};

const realRename = fs.promises.rename;

afterEach(() => {
  fs.promises.rename = realRename;
  syncBuiltinESMExports();
});

/**
 * The process stops at one rename of `startCall`'s write: the rename that
 * replaces `target` fails the first time, as if the process had been killed
 * there (the files written before it stay, the ones after it never come).
 */
function stopAtRenameOnto(target: (to: string) => boolean, options = { once: true }): void {
  let stopped = false;
  fs.promises.rename = async (from, to) => {
    if (!(stopped && options.once) && target(String(to))) {
      stopped = true;
      throw new Error("the process was killed here");
    }
    return realRename(from, to);
  };
  syncBuiltinESMExports();
}

/** The run waiting for the answer of interaction `i_1`, and the state its start writes. */
function runStates(runId: string): { waiting: RunState; started: RunState } {
  const waiting = suspendedRunState(runId, { status: "running" });
  const call = waiting.pendingCalls[0];
  if (!call) throw new Error("the fixture has no call");
  const started: RunState = {
    ...waiting,
    revision: 2,
    pendingCalls: [{ ...call, phase: "started" }],
    usedApprovals: [approval],
  };
  return { waiting, started };
}

describe("FileRunStore.startCall stopped part way (its crash windows)", () => {
  it("a write stopped before the state is renamed leaves the approval unspent: the same call of the run starts, another run is refused", async () => {
    const store = new FileRunStore({ directory: await makeDirectory() });
    const { waiting, started } = runStates("run-a");
    await store.save(waiting, { expectedRevision: 0 });
    stopAtRenameOnto((to) => to === store.pathOf("run-a"));
    await expect(store.startCall(started, start, { expectedRevision: 1 })).rejects.toThrow(
      /the process was killed here/,
    );

    // The marker and start records were written, not committed: they do not count.
    expect((await store.load("run-a")).revision).toBe(1);
    expect(await store.isApprovalUsed(approval)).toBe(false);
    expect(await store.startCall(started, start, { expectedRevision: 1 })).toEqual({
      outcome: "started",
    });
    expect(await store.isApprovalUsed(approval)).toBe(true);

    const other = runStates("run-b");
    await store.save(other.waiting, { expectedRevision: 0 });
    expect(await store.startCall(other.started, start, { expectedRevision: 1 })).toMatchObject({
      outcome: "already_used",
      runId: "run-a",
    });
  });

  it("a write stopped after the state is renamed has spent the approval: the call is not started again, and no other run uses it", async () => {
    const directory = await makeDirectory();
    const store = new FileRunStore({ directory });
    const { waiting, started } = runStates("run-a");
    await store.save(waiting, { expectedRevision: 0 });
    // The first rename after the state's is the marker's, rewritten as committed.
    let stateRenamed = false;
    stopAtRenameOnto((to) => {
      if (to === store.pathOf("run-a")) {
        stateRenamed = true;
        return false;
      }
      return stateRenamed;
    });
    await store.startCall(started, start, { expectedRevision: 1 }).catch(() => {});

    expect((await store.load("run-a")).revision).toBe(2);
    expect(await store.isApprovalUsed(approval)).toBe(true);
    expect(
      await store.startCall({ ...started, revision: 3 }, start, { expectedRevision: 2 }),
    ).toEqual({ outcome: "already_used", runId: "run-a", toolCallId: "call_1" });
    const other = runStates("run-b");
    await store.save(other.waiting, { expectedRevision: 0 });
    expect(await store.startCall(other.started, start, { expectedRevision: 1 })).toMatchObject({
      outcome: "already_used",
      runId: "run-a",
    });
  });

  it("a sealed run whose worker died before the state was renamed is resumed by the next owner, who runs the approved call once", async () => {
    const directory = await makeDirectory();
    const stateKey = "a-state-key-of-32-characters-or-more";
    const deleteCall = {
      toolCalls: [{ name: "delete_callbacks", arguments: { ids: ["cb-1"] }, id: "call_delete" }],
    };
    const suspended = await new Agent({
      model: new ScriptedModel([deleteCall]),
      tools: callbackTools().tools,
      approver: new ScriptedApprover(["pending"]),
      runStore: new FileRunStore({ directory }),
      stateKey,
    }).run("delete cb-1", { suspendOnApproval: true });
    const runId = suspended.runId ?? "";
    const stateFile = new FileRunStore({ directory }).pathOf(runId);

    // The worker reads the approval and dies in its start write, before the
    // state is renamed: no later write of its own reaches the state file.
    const markers = join(directory, "used-approvals");
    stopAtRenameOnto((to) => to === stateFile && fs.existsSync(markers), { once: false });
    const dead = callbackTools();
    await new Agent({
      model: new ScriptedModel([{ text: "deleted" }]),
      tools: dead.tools,
      approver: new ScriptedApprover([], { checks: ["approve"] }),
      runStore: new FileRunStore({ directory }),
      stateKey,
    }).resume(runId);
    fs.promises.rename = realRename;
    syncBuiltinESMExports();
    expect(dead.deletions).toEqual([]);
    expect(fs.readdirSync(markers)).toHaveLength(1);

    const next = callbackTools();
    const resumed = await new Agent({
      model: new ScriptedModel([{ text: "deleted" }]),
      tools: next.tools,
      approver: new ScriptedApprover([], { checks: ["approve"] }),
      runStore: new FileRunStore({ directory }),
      stateKey,
    }).resume(runId, { takeOver: true });
    expect(resumed.error?.message).toBeUndefined();
    expect(resumed.status).toBe("completed");
    expect(next.deletions).toEqual([["cb-1"]]);
  });
});
