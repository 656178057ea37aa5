import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { Approver } from "../../../src/agent/approver.js";
import { RunConflictError } from "../../../src/agent/durable/durable-errors.js";
import type { RunClaim, RunQueue } from "../../../src/agent/durable/run-queue.js";
import type { RunStore } from "../../../src/agent/durable/run-store.js";
import { FileRunStore } from "../../../src/stores/file-run-store.js";
import { ScriptedApprover, ScriptedModel } from "../../../src/testing/index.js";
import { usePostgresStores } from "../../helpers/postgres-test-database.js";
import { callbackTools, toolMessagesById, useTemporaryDirectories } from "./durable-helpers.js";

const makeDirectory = useTemporaryDirectories();
const makePostgresStore = usePostgresStores("spend");

const deleteOnly = {
  toolCalls: [
    { name: "delete_callbacks", arguments: { ids: ["cb-1", "cb-2"] }, id: "call_delete" },
  ],
};

/** Suspends a run on the approval of one deletion; resolves with its id. */
async function suspend(store: RunStore): Promise<string> {
  const result = await new Agent({
    model: new ScriptedModel([deleteOnly]),
    tools: callbackTools().tools,
    approver: new ScriptedApprover(["pending"]),
    runStore: store,
  }).run("delete cb-1 and cb-2", { suspendOnApproval: true });
  if (result.status !== "suspended" || !result.runId) throw new Error(result.status);
  return result.runId;
}

/**
 * An approver that reads "approve", but only after another worker took the
 * run over: the worker holding it stalled (a pause, a lost lease) between
 * reading the approval and starting the call.
 */
function stallingApprover(
  store: RunStore & RunQueue,
  runId: string,
  taken: { claim?: RunClaim | undefined },
): Approver {
  return {
    ask: async () => {
      throw new Error("a resumed run reads its answer; it never asks again");
    },
    read: async (_ticket, actions) => {
      taken.claim = await store.claim(runId, { takeOver: true, owner: "worker-b" });
      return actions.map((action) => ({
        outcome: "approved" as const,
        fingerprint: action.fingerprint,
      }));
    },
  };
}

describe.each([
  ["FileRunStore", async () => new FileRunStore({ directory: await makeDirectory() })],
  ["PostgresRunStore", async () => makePostgresStore()],
])("an approval is spent in the write that starts its call (%s)", (_name, makeStore) => {
  it("a worker that stalls between reading the approval and starting the call leaves it to the next owner, who runs the call once", async () => {
    const store = await makeStore();
    const runId = await suspend(store);

    // Worker A reads the approval, but worker B took the run over meanwhile.
    const taken: { claim?: RunClaim | undefined } = {};
    const workerA = callbackTools();
    const stalled = await new Agent({
      model: new ScriptedModel([{ text: "deleted" }]),
      tools: workerA.tools,
      approver: stallingApprover(store, runId, taken),
      runStore: store,
    }).resume(runId);
    expect(workerA.deletions).toEqual([]);
    expect(stalled.status).toBe("failed");
    expect(stalled.error).toBeInstanceOf(RunConflictError);

    // Worker B goes on with the run under its claim: the approval is still unspent.
    const workerB = callbackTools();
    const finished = await new Agent({
      model: new ScriptedModel([{ text: "deleted" }]),
      tools: workerB.tools,
      approver: new ScriptedApprover([], { checks: ["approve"] }),
      runStore: store,
    }).resume(runId, { claim: taken.claim });
    expect(finished.status).toBe("completed");
    expect(workerB.deletions).toEqual([["cb-1", "cb-2"]]);
    expect(toolMessagesById(finished.messages).call_delete).toEqual({ deleted: 2 });
    await taken.claim?.release();
  });
});
